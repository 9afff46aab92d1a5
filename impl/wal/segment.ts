/** A log segment file as WalStorage tracks it, and its name. */
import type { FileHandle } from './file-system.js';

/** One segment file, as the storage tracks it. */
export interface Segment {
  readonly sequence: number;
  readonly name: string;
  /** Bytes in the file plus bytes buffered for it. */
  bytes: number;
  /** Bytes buffered for it and not yet written. */
  unflushedBytes: number;
  /** The largest entry index ever written to it (0: none). */
  maxEntryIndex: number;
  /** HardState records synced in it: a segment may go only if a later one holds one. */
  hardStatesDurable: number;
  /** HardState records written to it since its last fsync. */
  hardStatesWritten: number;
  /** Whether the file's name is durable (a directory fsync after it was created). */
  onDisk: boolean;
  handle: FileHandle | null;
}

export function segmentName(sequence: number): string {
  return `wal-${String(sequence).padStart(16, '0')}.log`;
}
