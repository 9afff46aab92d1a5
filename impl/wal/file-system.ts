/**
 * The few file operations the WAL needs, so that one WAL implementation (format, group commit,
 * recovery) runs over the real disk (real/node-file-system.ts) and over the simulated, crashing
 * one (sim/memory-disk.ts). Paths are strings joined with '/'. A write is durable only after
 * `sync` on its file; a name (created, renamed, removed) only after `syncDirectory` on its
 * directory: the POSIX rules that crash-safe storage code has to follow.
 */
export interface FileHandle {
  /** Writes at the end of the file. */
  append(bytes: Uint8Array): Promise<void>;
  /**
   * append, on the caller's thread: returns once written (durable, for a file that writes
   * durably). For a caller that would only wait for the append anyway: no trip through a
   * thread pool and back. Optional: without it the WAL awaits `append`.
   */
  appendBlocking?(bytes: Uint8Array): void;
  truncate(length: number): Promise<void>;
  /** fsync (fdatasync): the file's written bytes become durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface FileSystem {
  /** Creates the directory and its parents if needed; durable at once. */
  makeDirectory(path: string): Promise<void>;
  /** The names in a directory, sorted. */
  list(directory: string): Promise<string[]>;
  readFile(path: string): Promise<Uint8Array>;
  /** Opens for appending, creating the file if missing; 'truncate' also empties it. */
  open(path: string, mode: 'append' | 'truncate'): Promise<FileHandle>;
  /** Replaces `to` atomically (both in one directory). */
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** fsync of the directory: names created, renamed or removed in it become durable. */
  syncDirectory(path: string): Promise<void>;
}

export function joinPath(directory: string, name: string): string {
  return directory.endsWith('/') ? directory + name : `${directory}/${name}`;
}
