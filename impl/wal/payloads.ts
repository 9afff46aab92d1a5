/**
 * The payloads of the four record types. A log segment holds Entry, Truncate and HardState
 * records in the order the storage was called; a snapshot file holds one Snapshot record.
 *
 *     Entry      index u53, term u53, flags u8 (bit 0: has a command), command bytes
 *     Truncate   fromIndex u53 (every entry at index >= fromIndex is gone)
 *     HardState  currentTerm u53, commitIndex u53, flags u8 (bit 0: has a vote), votedFor u53
 *     Snapshot   lastIncludedIndex u53, lastIncludedTerm u53, data bytes
 */
import type { HardState } from '../../spec/raft/types.js';
import { ByteReader, ByteWriter } from './bytes.js';

export interface EntryPayload {
  readonly index: number;
  readonly term: number;
  readonly command: Uint8Array | null;
}

export interface SnapshotPayload {
  readonly lastIncludedIndex: number;
  readonly lastIncludedTerm: number;
  readonly data: Uint8Array;
}

export function encodeEntry(entry: EntryPayload): Uint8Array {
  const writer = new ByteWriter(17 + (entry.command?.length ?? 0));
  writer.u53(entry.index).u53(entry.term).u8(entry.command === null ? 0 : 1);
  if (entry.command !== null) writer.bytes(entry.command);
  return writer.finish();
}

export function decodeEntry(payload: Uint8Array): EntryPayload {
  const reader = new ByteReader(payload);
  const index = reader.u53();
  const term = reader.u53();
  const flags = reader.u8();
  if (flags > 1) throw new RangeError(`entry flags ${flags}`);
  const command = reader.rest();
  if (flags === 0 && command.length > 0) throw new RangeError('command bytes without the flag');
  return { index, term, command: flags === 1 ? command : null };
}

export function encodeTruncate(fromIndex: number): Uint8Array {
  return new ByteWriter(8).u53(fromIndex).finish();
}

export function decodeTruncate(payload: Uint8Array): number {
  const reader = new ByteReader(payload);
  const fromIndex = reader.u53();
  reader.end();
  return fromIndex;
}

export function encodeHardState(hardState: HardState): Uint8Array {
  const writer = new ByteWriter(25).u53(hardState.currentTerm).u53(hardState.commitIndex);
  return writer.u8(hardState.votedFor === null ? 0 : 1).u53(hardState.votedFor ?? 0).finish();
}

export function decodeHardState(payload: Uint8Array): HardState {
  const reader = new ByteReader(payload);
  const currentTerm = reader.u53();
  const commitIndex = reader.u53();
  const flags = reader.u8();
  const vote = reader.u53();
  reader.end();
  if (flags > 1) throw new RangeError(`hard state flags ${flags}`);
  return { currentTerm, votedFor: flags === 1 ? vote : null, commitIndex };
}

export function encodeSnapshot(snapshot: SnapshotPayload): Uint8Array {
  const writer = new ByteWriter(16 + snapshot.data.length);
  return writer.u53(snapshot.lastIncludedIndex).u53(snapshot.lastIncludedTerm)
    .bytes(snapshot.data).finish();
}

export function decodeSnapshot(payload: Uint8Array): SnapshotPayload {
  const reader = new ByteReader(payload);
  const lastIncludedIndex = reader.u53();
  const lastIncludedTerm = reader.u53();
  return { lastIncludedIndex, lastIncludedTerm, data: reader.rest() };
}
