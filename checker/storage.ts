/**
 * The files a search keeps (a checkpoint, the disk mode's visited set and frontier): the checker names what it needs and the CLI
 * supplies the real directory (cli/file-directory.ts), so checker/ never touches node:fs
 * (test/impl/io-confinement). A search on a worker thread gets the directory by reference,
 * the module that opens it and its path, since functions do not cross threads.
 */

/** How a worker thread reopens a directory: `openDirectory(path)` of this module. */
export interface DirectoryRef {
  readonly module: string;
  readonly path: string;
}

export interface Directory {
  readonly ref: DirectoryRef;
  /** Writes the parts beside the file's name, fsyncs and renames over it: all or nothing. */
  replace(name: string, parts: readonly Uint8Array[]): void;
  /** The whole file, or undefined when there is none. */
  read(name: string): Uint8Array | undefined;
  /** The path shown in messages. */
  describe(name: string): string;
  /** A new file (replacing any of that name), written in order (disk-bfs.ts). */
  createWriter(name: string): FileWriter;
  /** Reads the file in order, or undefined when there is none. */
  openReader(name: string): FileReader | undefined;
  /** Renames over `to`; the files are scratch, so no fsync (see `sync`). */
  rename(from: string, to: string): void;
  /** Makes the files and the directory's entries durable (fsync): a checkpoint names them. */
  sync(names: readonly string[]): void;
  /** Removes the file if it exists. */
  remove(name: string): void;
}

export interface FileWriter {
  write(bytes: Uint8Array): void;
  close(): void;
}

export interface FileReader {
  /** Fills `into` from the file's current position; the bytes read, fewer only at its end. */
  read(into: Uint8Array): number;
  close(): void;
}

/** Whether the directory has the file (opened and closed, not read). */
export function holds(directory: Directory, name: string): boolean {
  const reader = directory.openReader(name);
  reader?.close();
  return reader !== undefined;
}

interface DirectoryModule {
  openDirectory(path: string): Directory;
}

/** Options holding a directory, with the directory by reference (to cross to a thread). */
export type ByReference<T extends { readonly directory: Directory }> = Omit<T, 'directory'> & {
  readonly directory: DirectoryRef;
};

export function byReference<T extends { readonly directory: Directory }>(
  options: T,
): ByReference<T> {
  return { ...options, directory: options.directory.ref };
}

/** The options back from `byReference`, the directory reopened (on a worker thread). */
export async function reopened<T extends { readonly directory: Directory }>(
  setup: ByReference<T>,
): Promise<T> {
  return { ...setup, directory: await reopenDirectory(setup.directory) } as unknown as T;
}

/** The directory a reference names, opened by its module (on any thread). */
export async function reopenDirectory(ref: DirectoryRef): Promise<Directory> {
  const module = (await import(ref.module)) as DirectoryModule;
  return module.openDirectory(ref.path);
}
