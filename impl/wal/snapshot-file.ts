/**
 * The snapshot file: one Snapshot record (record.ts), replaced atomically. The new snapshot goes
 * to a temporary file which is fsynced, renamed over the old one, and then the directory is
 * fsynced: after a crash the name holds the old snapshot or the new one, whole, never a mix. A
 * leftover temporary file is an unfinished snapshot and is ignored (removed) on load.
 */
import { WalCorruptionError } from './errors.js';
import { joinPath, type FileSystem } from './file-system.js';
import { decodeSnapshot, type SnapshotPayload } from './payloads.js';
import { RecordType, scanRecords } from './record.js';

export const snapshotFileName = 'snapshot.bin';
export const snapshotTemporaryName = 'snapshot.bin.tmp';

/** Writes an encoded Snapshot record durably under the snapshot name. */
export async function writeSnapshotFile(
  fileSystem: FileSystem,
  directory: string,
  record: Uint8Array,
): Promise<void> {
  const temporary = joinPath(directory, snapshotTemporaryName);
  const file = await fileSystem.open(temporary, 'truncate');
  await file.append(record);
  await file.sync();
  await file.close();
  await fileSystem.rename(temporary, joinPath(directory, snapshotFileName));
  await fileSystem.syncDirectory(directory);
}

/** Reads the snapshot file; anything but one whole, valid Snapshot record is corruption. */
export async function readSnapshotFile(
  fileSystem: FileSystem,
  directory: string,
): Promise<{ snapshot: SnapshotPayload; bytes: number }> {
  const path = joinPath(directory, snapshotFileName);
  const bytes = await fileSystem.readFile(path);
  const scan = scanRecords(bytes);
  if (scan.failure !== null) {
    throw new WalCorruptionError(path, scan.failure.offset, scan.failure.reason);
  }
  const record = scan.records[0];
  if (scan.records.length !== 1 || record?.type !== RecordType.Snapshot) {
    const found = scan.records.length;
    throw new WalCorruptionError(path, 0, `expected one snapshot record, found ${found}`);
  }
  try {
    return { snapshot: decodeSnapshot(record.payload), bytes: bytes.length };
  } catch (error) {
    throw new WalCorruptionError(path, 0, `malformed snapshot record: ${(error as Error).message}`);
  }
}
