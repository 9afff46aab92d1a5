/**
 * Little-endian field writing and reading for WAL records. Indexes and terms are JavaScript
 * numbers below 2^53, stored in 8 bytes (low word, then high word) so the format is u64-ready.
 */
import { assert } from '../../spec/assert.js';

const twoTo32 = 2 ** 32;

export class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  private length = 0;

  constructor(capacity = 64) {
    this.buffer = new Uint8Array(capacity);
    this.view = new DataView(this.buffer.buffer);
  }

  u8(value: number): this {
    this.reserve(1);
    this.view.setUint8(this.length, value);
    this.length += 1;
    return this;
  }

  u32(value: number): this {
    assert(Number.isInteger(value) && value >= 0 && value < twoTo32, `not a u32: ${value}`);
    this.reserve(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
    return this;
  }

  /** A non-negative safe integer in 8 bytes. */
  u53(value: number): this {
    assert(Number.isSafeInteger(value) && value >= 0, `not a u53: ${value}`);
    return this.u32(value % twoTo32).u32(Math.floor(value / twoTo32));
  }

  bytes(value: Uint8Array): this {
    this.reserve(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
    return this;
  }

  /** The written bytes (a view: the writer must not be used afterwards). */
  finish(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }
}

/** Reads fields in order; reading past the end throws (a record that lies about its shape). */
export class ByteReader {
  private readonly view: DataView;
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }

  u53(): number {
    const low = this.u32();
    const high = this.u32();
    const value = high * twoTo32 + low;
    if (!Number.isSafeInteger(value)) throw new RangeError(`integer beyond 2^53: ${value}`);
    return value;
  }

  /** Every byte not read yet. */
  rest(): Uint8Array {
    const value = this.bytes.subarray(this.offset);
    this.offset = this.bytes.length;
    return value;
  }

  /** Asserts that every byte was read. */
  end(): void {
    if (this.offset !== this.bytes.length) {
      throw new RangeError(`${this.bytes.length - this.offset} unexpected trailing bytes`);
    }
  }

  private need(count: number): void {
    if (this.offset + count > this.bytes.length) throw new RangeError('field beyond the record');
  }
}

/** The pieces one after another in one new array. */
export function concatenateBytes(pieces: readonly Uint8Array[]): Uint8Array {
  const result = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    result.set(piece, offset);
    offset += piece.length;
  }
  return result;
}
