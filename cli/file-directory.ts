/** The checker's Directory (checker/storage.ts) on the real file system. */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync,
  renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Directory, FileReader, FileWriter } from '../checker/storage.js';

/** fsync of a file or a directory: a rename is durable once its directory is (as impl/wal). */
function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function openDirectory(path: string): Directory {
  return {
    ref: { module: import.meta.url, path },
    replace(name, parts) {
      mkdirSync(path, { recursive: true });
      const temporary = join(path, `${name}.${process.pid}.tmp`);
      const fd = openSync(temporary, 'w');
      try {
        for (const part of parts) writeAll(fd, part);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, join(path, name));
      syncPath(path);
    },
    read(name) {
      const file = join(path, name);
      return existsSync(file) ? readFileSync(file) : undefined;
    },
    describe: (name) => join(path, name),
    createWriter(name): FileWriter {
      mkdirSync(path, { recursive: true });
      const fd = openSync(join(path, name), 'w');
      return { write: (bytes) => writeAll(fd, bytes), close: () => closeSync(fd) };
    },
    openReader(name): FileReader | undefined {
      const file = join(path, name);
      if (!existsSync(file)) return undefined;
      const fd = openSync(file, 'r');
      return { read: (into) => readAll(fd, into), close: () => closeSync(fd) };
    },
    rename: (from, to) => renameSync(join(path, from), join(path, to)),
    remove: (name) => rmSync(join(path, name), { force: true }),
    sync(names) {
      for (const name of names) syncPath(join(path, name));
      syncPath(path);
    },
  };
}

/** writeSync may write less than asked (a full disk raises instead). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.length;) {
    written += writeSync(fd, bytes, written, bytes.length - written);
  }
}

function readAll(fd: number, into: Uint8Array): number {
  let filled = 0;
  while (filled < into.length) {
    const read = readSync(fd, into, filled, into.length - filled, null);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}
