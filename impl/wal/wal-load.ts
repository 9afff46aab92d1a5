/**
 * Reading a node directory back (WalStorage.load): the snapshot, then every segment in sequence
 * order through LogReplay. The last segment's torn tail (torn-tail.ts: a write that never
 * finished) is cut off (truncated and fsynced) and reported; any other bad record, in the last
 * segment or an earlier one, is damage and stops the load (WalCorruptionError), and so is a
 * hard state that commits entries the snapshot and the log no longer hold (a lost snapshot).
 */
import { restartRefusal } from '../../spec/raft/persistence.js';
import type { HardState } from '../../spec/raft/types.js';
import { WalCorruptionError, type RecoveryEvent } from './errors.js';
import { joinPath, type FileSystem } from './file-system.js';
import { LogReplay } from './log-replay.js';
import type { EntryPayload, SnapshotPayload } from './payloads.js';
import {
  isLeftoverSnapshotName, readSnapshotFile, snapshotFileName,
} from './snapshot-file.js';
import { segmentName, type Segment } from './segment.js';
import { judgeBadRecord } from './torn-tail.js';

export interface LoadedWal {
  readonly segments: Segment[];
  readonly hardState: HardState | null;
  readonly snapshot: SnapshotPayload | null;
  readonly snapshotBytes: number;
  /** The entries after the snapshot, contiguous from its index + 1 (or from 1). */
  readonly entries: EntryPayload[];
}

const segmentPattern = /^wal-(\d{16})\.log$/;

export async function loadWal(
  fileSystem: FileSystem,
  directory: string,
  onRecovery: (event: RecoveryEvent) => void,
): Promise<LoadedWal> {
  await fileSystem.makeDirectory(directory);
  const names = await fileSystem.list(directory);
  for (const name of names.filter(isLeftoverSnapshotName)) {
    const file = joinPath(directory, name);
    await fileSystem.remove(file);
    onRecovery({ kind: 'leftover-temporary', file });
  }
  const snapshotFile = names.includes(snapshotFileName)
    ? await readSnapshotFile(fileSystem, directory)
    : null;
  const sequences = names.flatMap((name) => {
    const match = segmentPattern.exec(name);
    return match === null ? [] : [Number(match[1])];
  });
  sequences.sort((first, second) => first - second);
  const replay = new LogReplay();
  const segments: Segment[] = [];
  for (const [position, sequence] of sequences.entries()) {
    const isLast = position === sequences.length - 1;
    segments.push(await loadSegment(fileSystem, directory, sequence, replay, isLast, onRecovery));
  }
  const snapshot = snapshotFile?.snapshot ?? null;
  const entries = entriesAfter(replay.entries, snapshot, directory);
  refuseLostCommits(replay.hardState, snapshot, entries, directory);
  return {
    segments,
    hardState: replay.hardState,
    snapshot,
    snapshotBytes: snapshotFile?.bytes ?? 0,
    entries,
  };
}

/** A commit index beyond the log: durable entries were lost (spec/raft/persistence.ts). */
function refuseLostCommits(
  hardState: HardState | null,
  snapshot: SnapshotPayload | null,
  entries: readonly EntryPayload[],
  directory: string,
): void {
  if (hardState === null) return;
  const refusal = restartRefusal({ hardState, snapshot, entries });
  if (refusal !== null) throw new WalCorruptionError(directory, 0, refusal);
}

async function loadSegment(
  fileSystem: FileSystem,
  directory: string,
  sequence: number,
  replay: LogReplay,
  isLast: boolean,
  onRecovery: (event: RecoveryEvent) => void,
): Promise<Segment> {
  const name = segmentName(sequence);
  const path = joinPath(directory, name);
  const bytes = await fileSystem.readFile(path);
  const result = replay.replaySegment(bytes);
  const segment: Segment = {
    sequence, name, bytes: result.validBytes, unflushedBytes: 0,
    maxEntryIndex: result.maxEntryIndex, hardStatesDurable: result.hardStates,
    hardStatesWritten: 0, onDisk: true, handle: null,
  };
  if (result.failure === null) return segment;
  if (!isLast) throw new WalCorruptionError(path, result.failure.offset, result.failure.reason);
  const verdict = judgeBadRecord(bytes, result.failure.offset);
  if (verdict.kind === 'damaged') {
    const reason = `${result.failure.reason}; ${verdict.why}`;
    throw new WalCorruptionError(path, result.failure.offset, reason);
  }
  // A torn tail: bytes written after the last completed sync. Cut them off durably before any
  // new record goes after them.
  const handle = await fileSystem.open(path, 'append');
  await handle.truncate(result.validBytes);
  await handle.sync();
  segment.handle = handle;
  onRecovery({
    kind: 'torn-tail', file: path, offset: result.failure.offset,
    droppedBytes: bytes.length - result.validBytes, reason: result.failure.reason,
  });
  return segment;
}

/** Drops the entries the snapshot covers; the rest must continue the snapshot without a gap. */
function entriesAfter(
  entries: readonly EntryPayload[],
  snapshot: SnapshotPayload | null,
  directory: string,
): EntryPayload[] {
  const snapshotIndex = snapshot?.lastIncludedIndex ?? 0;
  const first = entries[0];
  if (first === undefined) return [];
  const last = entries.at(-1)!;
  if (last.index <= snapshotIndex) return [];
  if (first.index > snapshotIndex + 1) {
    const reason = `the log starts at index ${first.index}, the snapshot ends at ${snapshotIndex}`;
    throw new WalCorruptionError(directory, 0, reason);
  }
  return entries.slice(snapshotIndex + 1 - first.index);
}
