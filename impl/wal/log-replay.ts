/**
 * Rebuilds the log from a segment's records, in the order they were written. The rules make the
 * records a history of appendEntries calls:
 * - Entry(i) replaces every entry at index >= i; an Entry after a gap (a snapshot was installed
 *   past the log's end, Raft §7) starts the log afresh at i;
 * - Truncate(i) removes every entry at index >= i;
 * - HardState replaces the hard state.
 * Deleting whole segments from the front never changes the entries after the snapshot, as long
 * as those segments hold only entries up to the snapshot index (wal-storage.ts deletes only such
 * a prefix).
 */
import type { HardState } from '../../spec/raft/types.js';
import {
  decodeEntry, decodeHardState, decodeTruncate, type EntryPayload,
} from './payloads.js';
import { RecordType, scanRecords, type ScanFailure } from './record.js';

export class LogReplay {
  /** Contiguous: entries[i].index === entries[0].index + i. */
  entries: EntryPayload[] = [];
  hardState: HardState | null = null;

  /** Replays one segment's bytes; stops at the first record that is not whole and valid. */
  replaySegment(bytes: Uint8Array): SegmentReplay {
    const scan = scanRecords(bytes);
    let maxEntryIndex = 0;
    let hardStates = 0;
    for (const record of scan.records) {
      try {
        const index = this.apply(record.type, record.payload);
        maxEntryIndex = Math.max(maxEntryIndex, index);
        if (record.type === RecordType.HardState) hardStates++;
      } catch (error) {
        const reason = `malformed ${RecordType[record.type]} record: ${(error as Error).message}`;
        const failure = { offset: record.offset, reason };
        return { validBytes: record.offset, failure, maxEntryIndex, hardStates };
      }
    }
    return { validBytes: scan.validBytes, failure: scan.failure, maxEntryIndex, hardStates };
  }

  /** Applies one record; returns the entry index it wrote (0 for other records). */
  private apply(type: RecordType, payload: Uint8Array): number {
    switch (type) {
      case RecordType.Entry: {
        const entry = decodeEntry(payload);
        if (entry.index < 1) throw new RangeError('entry index 0');
        this.truncate(entry.index);
        const last = this.entries.at(-1);
        if (last !== undefined && last.index !== entry.index - 1) this.entries = [];
        this.entries.push(entry);
        return entry.index;
      }
      case RecordType.Truncate:
        this.truncate(decodeTruncate(payload));
        return 0;
      case RecordType.HardState:
        this.hardState = decodeHardState(payload);
        return 0;
      case RecordType.Snapshot:
        throw new RangeError('a snapshot record does not belong in a log segment');
    }
  }

  private truncate(fromIndex: number): void {
    const first = this.entries[0];
    if (first === undefined) return;
    this.entries.length = Math.max(0, Math.min(this.entries.length, fromIndex - first.index));
  }
}

export interface SegmentReplay {
  readonly validBytes: number;
  readonly failure: ScanFailure | null;
  /** The largest entry index written in the segment's valid records (0: none). */
  readonly maxEntryIndex: number;
  /** How many HardState records its valid part holds. */
  readonly hardStates: number;
}
