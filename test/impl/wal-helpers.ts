// Shared by the WAL tests: a storage over a directory, with its recovery reports collected.
import type { Entry, Snapshot } from '../../spec/raft/types.js';
import type { RecoveryEvent } from '../../impl/wal/errors.js';
import type { FileSystem } from '../../impl/wal/file-system.js';
import { WalStorage } from '../../impl/wal/wal-storage.js';

export type Command = { key: string; value: string };
export type Data = { applied: number; keys: string[] };

export function openWal(
  fileSystem: FileSystem,
  directory: string,
  segmentBytes?: number,
): { storage: WalStorage<Command, Data>; events: RecoveryEvent[] } {
  const events: RecoveryEvent[] = [];
  const storage = new WalStorage<Command, Data>({
    fileSystem, directory, segmentBytes, onRecovery: (event) => events.push(event),
  });
  return { storage, events };
}

/** A snapshot whose data records the index it covers. */
export function snapshotAt(index: number, term: number, keys: string[] = []): Snapshot<Data> {
  return { lastIncludedIndex: index, lastIncludedTerm: term, data: { applied: index, keys } };
}

/** Entries of term `term` with commands k<index>=v<index>, every third one a no-op. */
export function entries(fromIndex: number, count: number, term: number): Entry<Command>[] {
  return Array.from({ length: count }, (_, offset) => {
    const index = fromIndex + offset;
    return index % 3 === 0
      ? { term, command: null }
      : { term, command: { key: `k${index}`, value: `v${index}` } };
  });
}
