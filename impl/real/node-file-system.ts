/**
 * The real disk for the WAL: node:fs promises, fsync per directory. A file opened to append
 * (a WAL segment) is opened with O_DSYNC, so that each write returns once it is durable
 * (POSIX synchronized I/O data integrity: the bytes and the size needed to read them back):
 * its `sync` then has nothing left to do, and a sync costs the disk one trip through
 * libuv's thread pool instead of two (write, then fdatasync). On a loaded machine each trip
 * waits for the node's thread to be scheduled again (docs/benchmarks.md). A truncation is
 * not a write: a sync after one runs fdatasync. `appendBlocking` writes on the node's own
 * thread, for a sync its loop waits for anyway (a follower's append before its answer): no
 * trip at all, and one wake-up fewer on a put's path.
 */
import { constants, writeSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import type { FileHandle as NodeFileHandle } from 'node:fs/promises';
import type { FileHandle, FileSystem } from '../wal/file-system.js';

/** A regular file takes a write whole; the bound only guards against a looping short write. */
const shortWritesMax = 1024;

const appendDurably = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND |
  constants.O_DSYNC;

class NodeFile implements FileHandle {
  /**
   * Bytes or a length changed that no write made durable yet: sync() runs fdatasync. A file
   * opened with 'w' was emptied by the open itself.
   */
  private unsynced: boolean;

  constructor(private readonly handle: NodeFileHandle, private readonly writesDurable: boolean) {
    this.unsynced = !writesDurable;
  }

  async append(bytes: Uint8Array): Promise<void> {
    let written = 0;
    for (let attempt = 0; written < bytes.length; attempt++) {
      if (attempt === shortWritesMax) throw new Error('write made no progress');
      const result = await this.handle.write(bytes, written, bytes.length - written);
      written += result.bytesWritten;
    }
    if (!this.writesDurable) this.unsynced = true;
  }

  appendBlocking(bytes: Uint8Array): void {
    let written = 0;
    for (let attempt = 0; written < bytes.length; attempt++) {
      if (attempt === shortWritesMax) throw new Error('write made no progress');
      written += writeSync(this.handle.fd, bytes, written, bytes.length - written);
    }
    if (!this.writesDurable) this.unsynced = true;
  }

  async truncate(length: number): Promise<void> {
    await this.handle.truncate(length);
    this.unsynced = true;
  }

  async sync(): Promise<void> {
    if (!this.unsynced) return;
    await this.handle.datasync();
    this.unsynced = false;
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
    if (mode === 'append') return new NodeFile(await open(path, appendDurably), true);
    return new NodeFile(await open(path, 'w'), false);
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
