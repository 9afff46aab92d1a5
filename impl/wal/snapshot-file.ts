/**
 * The snapshot file: one Snapshot record (record.ts), replaced atomically. The new snapshot goes
 * to a temporary file which is fsynced, renamed over the old one, and then the directory is
 * fsynced: after a crash the name holds the old snapshot or the new one, whole, never a mix. A
 * leftover temporary file is an unfinished snapshot and is ignored (removed) on load.
 *
 * A snapshot prepared in the background (WalStorage.prepareSnapshot) is written and fsynced
 * under a name of its own, `snapshot-<index>.prepared`, before the step that takes it; taking
 * it is only the rename and the directory fsync. A leftover prepared file is removed on load
 * like a temporary one.
 */
import { WalCorruptionError } from './errors.js';
import { joinPath, type FileSystem } from './file-system.js';
import { decodeSnapshot, type SnapshotPayload } from './payloads.js';
import { RecordType, scanRecords } from './record.js';

export const snapshotFileName = 'snapshot.bin';
export const snapshotTemporaryName = 'snapshot.bin.tmp';
const preparedPattern = /^snapshot-\d+\.prepared$/;

export function preparedSnapshotName(lastIncludedIndex: number): string {
  return `snapshot-${lastIncludedIndex}.prepared`;
}

/** Whether `name` is a file that load() removes: an unfinished or untaken snapshot. */
export function isLeftoverSnapshotName(name: string): boolean {
  return name === snapshotTemporaryName || preparedPattern.test(name);
}

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

/** Writes a snapshot record, given in pieces, durably under a prepared name (not yet taken). */
export async function writePreparedSnapshot(
  fileSystem: FileSystem,
  directory: string,
  name: string,
  pieces: readonly Uint8Array[],
): Promise<void> {
  const file = await fileSystem.open(joinPath(directory, name), 'truncate');
  for (const piece of pieces) await file.append(piece);
  await file.sync();
  await file.close();
}

/** Takes a prepared snapshot: it replaces the snapshot file atomically. */
export async function takePreparedSnapshot(
  fileSystem: FileSystem,
  directory: string,
  name: string,
): Promise<void> {
  await fileSystem.rename(joinPath(directory, name), joinPath(directory, snapshotFileName));
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
