/** The real disk for the WAL: node:fs promises, fdatasync per file, fsync per directory. */
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import type { FileHandle as NodeFileHandle } from 'node:fs/promises';
import type { FileHandle, FileSystem } from '../wal/file-system.js';

/** A regular file takes a write whole; the bound only guards against a looping short write. */
const shortWritesMax = 1024;

class NodeFile implements FileHandle {
  constructor(private readonly handle: NodeFileHandle) {}

  async append(bytes: Uint8Array): Promise<void> {
    let written = 0;
    for (let attempt = 0; written < bytes.length; attempt++) {
      if (attempt === shortWritesMax) throw new Error('write made no progress');
      const result = await this.handle.write(bytes, written, bytes.length - written);
      written += result.bytesWritten;
    }
  }

  truncate(length: number): Promise<void> {
    return this.handle.truncate(length);
  }

  sync(): Promise<void> {
    return this.handle.datasync();
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

export class NodeFileSystem implements FileSystem {
  async makeDirectory(path: string): Promise<void> {
    await mkdir(path, { recursive: true });
  }

  async list(directory: string): Promise<string[]> {
    return (await readdir(directory)).sort();
  }

  async readFile(path: string): Promise<Uint8Array> {
    return new Uint8Array(await readFile(path));
  }

  async open(path: string, mode: 'append' | 'truncate'): Promise<FileHandle> {
    return new NodeFile(await open(path, mode === 'append' ? 'a' : 'w'));
  }

  rename(from: string, to: string): Promise<void> {
    return rename(from, to);
  }

  remove(path: string): Promise<void> {
    return rm(path);
  }

  async syncDirectory(path: string): Promise<void> {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
