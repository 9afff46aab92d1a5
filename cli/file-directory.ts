/** The checker's Directory (checker/storage.ts) on the real file system. */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync,
  writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Directory } from '../checker/storage.js';

/** A rename is durable only once its directory is synced (as impl/wal does). */
function syncDirectory(path: string): void {
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
        for (const part of parts) writeSync(fd, part);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, join(path, name));
      syncDirectory(path);
    },
    read(name) {
      const file = join(path, name);
      return existsSync(file) ? readFileSync(file) : undefined;
    },
    describe: (name) => join(path, name),
  };
}
