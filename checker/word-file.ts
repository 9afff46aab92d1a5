/**
 * 32-bit words streamed to and from a file of a Directory (storage.ts) through one bounded
 * buffer each: the disk mode's sorted fingerprints and its frontier (disk-bfs.ts).
 */
import { ok as assert } from 'node:assert';
import type { Directory, FileReader, FileWriter } from './storage.js';

export class WordFileWriter {
  private readonly file: FileWriter;
  private readonly buffer: Int32Array;
  private length = 0;
  /** Words written so far, buffered ones included. */
  written = 0;

  constructor(directory: Directory, name: string, bufferWords: number) {
    assert(Number.isInteger(bufferWords) && bufferWords >= 2, 'a buffer of two words or more');
    this.file = directory.createWriter(name);
    this.buffer = new Int32Array(bufferWords);
  }

  push(word: number): void {
    if (this.length === this.buffer.length) this.flush();
    this.buffer[this.length++] = word;
    this.written++;
  }

  pushWords(source: Int32Array, start: number, end: number): void {
    for (let index = start; index < end; index++) this.push(source[index]!);
  }

  close(): void {
    this.flush();
    this.file.close();
  }

  private flush(): void {
    const buffer = this.buffer;
    this.file.write(new Uint8Array(buffer.buffer, buffer.byteOffset, this.length * 4));
    this.length = 0;
  }
}

/** Reads a file's words in order: `words[position, end)` are the ones read and not used. */
export class WordFileReader {
  private readonly file: FileReader | undefined;
  words: Int32Array;
  position = 0;
  end = 0;
  private exhausted = false;

  /** A file that does not exist reads as empty. */
  constructor(directory: Directory, name: string, bufferWords: number) {
    assert(Number.isInteger(bufferWords) && bufferWords >= 2, 'a buffer of two words or more');
    this.file = directory.openReader(name);
    this.exhausted = this.file === undefined;
    this.words = new Int32Array(bufferWords);
  }

  /**
   * Makes at least `count` unused words available (growing the buffer for a longer run);
   * false when the file ends first.
   */
  ensure(count: number): boolean {
    if (this.end - this.position >= count) return true;
    if (this.exhausted) return false;
    const left = this.end - this.position;
    if (count > this.words.length) {
      const wider = new Int32Array(count);
      wider.set(this.words.subarray(this.position, this.end));
      this.words = wider;
    } else {
      this.words.copyWithin(0, this.position, this.end);
    }
    this.position = 0;
    this.end = left;
    const words = this.words;
    const freeBytes = (words.length - left) * 4;
    const free = new Uint8Array(words.buffer, words.byteOffset + left * 4, freeBytes);
    const read = this.file!.read(free);
    assert(read % 4 === 0, 'a word file holds whole words');
    this.end += read / 4;
    if (read < free.length) this.exhausted = true;
    return this.end - this.position >= count;
  }

  close(): void {
    this.file?.close();
  }
}
