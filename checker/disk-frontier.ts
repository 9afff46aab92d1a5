/**
 * The disk mode's frontier: the level being expanded streams from one file while the states
 * found new stream into the other (disk-bfs.ts). An entry is its length, then its words.
 */
import type { QueueEntry } from './state-store.js';
import type { Directory } from './storage.js';
import { WordFileReader, WordFileWriter } from './word-file.js';

const fileNames = ['disk-frontier-0.bin', 'disk-frontier-1.bin'] as const;

export class DiskFrontier {
  /** States of the level being written. */
  upcoming = 0;
  /** States of the level being read, not yet shifted. */
  current = 0;
  /** The file of the level being written (or, resumed, of a checkpoint's level). */
  private written: string = fileNames[0];
  private writer: WordFileWriter | undefined;
  private reader: WordFileReader | undefined;

  /** `resumed`: a checkpoint's frontier file and its count, read first (disk-checkpoint.ts). */
  constructor(
    private readonly directory: Directory,
    private readonly bufferWords: number,
    resumed?: { readonly file: string; readonly count: number },
  ) {
    if (resumed) {
      this.written = resumed.file;
      this.upcoming = resumed.count;
    } else {
      this.writer = new WordFileWriter(directory, this.written, bufferWords);
    }
  }

  push(words: Int32Array, start: number, end: number): void {
    this.writer!.push(end - start);
    this.writer!.pushWords(words, start, end);
    this.upcoming++;
  }

  /**
   * The level written so far becomes the one read, first renamed to `pinned` when given (a
   * checkpoint keeps that file); the next starts empty in the other working file.
   */
  advance(pinned?: string): void {
    // Forgotten before they are closed: after an error, `close` must not close them again.
    const { reader, writer } = this;
    this.reader = undefined;
    this.writer = undefined;
    reader?.close();
    writer?.close();
    if (pinned !== undefined) {
      this.directory.rename(this.written, pinned);
      this.written = pinned;
    }
    this.reader = new WordFileReader(this.directory, this.written, this.bufferWords);
    this.current = this.upcoming;
    this.upcoming = 0;
    this.written = this.written === fileNames[0] ? fileNames[1] : fileNames[0];
    this.writer = new WordFileWriter(this.directory, this.written, this.bufferWords);
  }

  /** The level's next state into `entry` (valid until the next shift); false at its end. */
  shift(entry: QueueEntry): boolean {
    const reader = this.reader;
    if (this.current === 0 || reader === undefined) return false;
    if (!reader.ensure(1)) throw new Error('the frontier file ended early');
    const length = reader.words[reader.position]!;
    if (!reader.ensure(1 + length)) throw new Error('the frontier file ended early');
    entry.words = reader.words;
    entry.id = 0;
    entry.start = reader.position + 1;
    entry.end = entry.start + length;
    reader.position = entry.end;
    this.current--;
    return true;
  }

  /** Closes and removes both working files: they serve only this search. */
  close(): void {
    this.reader?.close();
    this.writer?.close();
    for (const name of fileNames) this.directory.remove(name);
  }
}
