/**
 * The files a search keeps (a checkpoint): the checker names what it needs and the CLI
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
}

interface DirectoryModule {
  openDirectory(path: string): Directory;
}

/** The directory a reference names, opened by its module (on any thread). */
export async function reopenDirectory(ref: DirectoryRef): Promise<Directory> {
  const module = (await import(ref.module)) as DirectoryModule;
  return module.openDirectory(ref.path);
}
