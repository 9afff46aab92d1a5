/**
 * Growable buffers of 32-bit words: how states are encoded for fingerprinting and for the
 * compact frontier. Writing to a reused buffer allocates nothing in the checker's hot loop.
 */
import { ok as assert } from 'node:assert';

const initialCapacityWords = 64;

export class WordWriter {
  words: Int32Array;
  length = 0;

  constructor(capacityWords = initialCapacityWords) {
    this.words = new Int32Array(capacityWords);
  }

  reset(): void {
    this.length = 0;
  }

  /** Appends a value that must fit in 32 bits (signed or unsigned). */
  push(word: number): void {
    if (this.length === this.words.length) this.grow(this.length + 1);
    this.words[this.length++] = word;
  }

  /** Appends a string as its length followed by its UTF-16 code units, two per word. */
  pushString(text: string): void {
    const length = text.length;
    this.push(length);
    for (let index = 0; index < length; index += 2) {
      const high = text.charCodeAt(index);
      const low = index + 1 < length ? text.charCodeAt(index + 1) : 0;
      this.push((high << 16) | low);
    }
  }

  /** Appends a float64 (or an integer beyond 32 bits) as two words. */
  pushNumber(value: number): void {
    scratchFloat[0] = value;
    this.push(scratchWords[0]!);
    this.push(scratchWords[1]!);
  }

  /**
   * Makes room for `count` more words and returns where they start: the caller writes
   * words[at, at + count) itself (one capacity check for a whole state, not one a word).
   */
  claim(count: number): number {
    const at = this.length;
    if (at + count > this.words.length) this.grow(at + count);
    this.length = at + count;
    return at;
  }

  pushWords(source: Int32Array, start: number, end: number): void {
    const count = end - start;
    if (this.length + count > this.words.length) this.grow(this.length + count);
    // A loop: `set(subarray(...))` allocates a view, which costs more than a short copy.
    const words = this.words;
    let target = this.length;
    for (let index = start; index < end; index++) words[target++] = source[index]!;
    this.length = target;
  }

  private grow(minimumWords: number): void {
    let capacity = this.words.length * 2;
    while (capacity < minimumWords) capacity *= 2;
    const words = new Int32Array(capacity);
    words.set(this.words.subarray(0, this.length));
    this.words = words;
  }
}

/** Whether two encodings are equal (an empty one equals none: no state encodes to nothing). */
export function sameWords(first: WordWriter, second: WordWriter): boolean {
  const length = first.length;
  if (length !== second.length || length === 0) return false;
  const a = first.words;
  const b = second.words;
  for (let index = 0; index < length; index++) {
    if (a[index] !== b[index]) return false;
  }
  return true;
}

export class WordReader {
  constructor(
    public words: Int32Array,
    public position = 0,
    public end = words.length,
  ) {}

  next(): number {
    assert(this.position < this.end, 'read past the end of an encoded state');
    return this.words[this.position++]!;
  }

  nextString(): string {
    const length = this.next();
    let text = '';
    for (let index = 0; index < length; index += 2) {
      const word = this.next();
      text += String.fromCharCode((word >>> 16) & 0xffff);
      if (index + 1 < length) text += String.fromCharCode(word & 0xffff);
    }
    return text;
  }

  /** Skips `count` words and returns where they start (read them from `words`). */
  skip(count: number): number {
    const at = this.position;
    assert(at + count <= this.end, 'read past the end of an encoded state');
    this.position = at + count;
    return at;
  }

  nextNumber(): number {
    scratchWords[0] = this.next();
    scratchWords[1] = this.next();
    return scratchFloat[0]!;
  }
}

const scratchFloat = new Float64Array(1);
const scratchWords = new Int32Array(scratchFloat.buffer);
