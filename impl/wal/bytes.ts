/**
 * Little-endian field writing and reading for WAL records and wire frames. Indexes and terms
 * are JavaScript numbers below 2^53: a WAL record stores them in 8 bytes (low word, then high
 * word) so the format is u64-ready; a frame stores them as varints (small numbers, sent often).
 */
import { assert } from '../../spec/assert.js';

const twoTo32 = 2 ** 32;
/** 2^53 takes 53 bits, so a varint of it takes 8 bytes of 7. */
const varintBytesMax = 8;
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Writes into a Buffer (Node's pooled allocation, and its native UTF-8 writer: a TextEncoder
 * or a DataView on a fresh array costs several times the bytes it writes in a small frame).
 */
export class ByteWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(capacity = 64) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  u8(value: number): this {
    this.reserve(1);
    this.buffer[this.length++] = value;
    return this;
  }

  u32(value: number): this {
    // Not assert(): its message would be built on every call of a hot path.
    const isU32 = Number.isInteger(value) && value >= 0 && value < twoTo32;
    if (!isU32) assert(false, `not a u32: ${value}`);
    this.reserve(4);
    this.length = this.buffer.writeUInt32LE(value, this.length);
    return this;
  }

  /** A non-negative safe integer in 8 bytes. */
  u53(value: number): this {
    if (!(Number.isSafeInteger(value) && value >= 0)) assert(false, `not a u53: ${value}`);
    return this.u32(value % twoTo32).u32(Math.floor(value / twoTo32));
  }

  /** A non-negative safe integer in 1 to 8 bytes, 7 bits each, low first (LEB128). */
  varint(value: number): this {
    if (!(Number.isSafeInteger(value) && value >= 0)) assert(false, `not a u53: ${value}`);
    this.reserve(varintBytesMax);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.length++] = rest;
    return this;
  }

  /** Bytes preceded by their count, as a varint. */
  sized(value: Uint8Array): this {
    return this.varint(value.length).bytes(value);
  }

  /** Text in UTF-8, preceded by its byte count. */
  text(value: string): this {
    const count = Buffer.byteLength(value);
    return this.varint(count).utf8(value, count);
  }

  /** Text in UTF-8 (`count` bytes of it), written in place: no copy is made first. */
  utf8(value: string, count = Buffer.byteLength(value)): this {
    this.reserve(count);
    this.length += this.buffer.write(value, this.length);
    return this;
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
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + extra));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}

/** Reads fields in order; reading past the end throws (a record that lies about its shape). */
export class ByteReader {
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {}

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  u32(): number {
    this.need(4);
    const bytes = this.bytes;
    const at = this.offset;
    this.offset += 4;
    return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)) + bytes[at + 3]! * 2 ** 24;
  }

  u53(): number {
    const low = this.u32();
    const high = this.u32();
    const value = high * twoTo32 + low;
    if (!Number.isSafeInteger(value)) throw new RangeError(`integer beyond 2^53: ${value}`);
    return value;
  }

  /** A varint as ByteWriter.varint writes it; a longer or padded one is malformed. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let count = 1; count <= varintBytesMax; count++) {
      const byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (byte === 0 && count > 1) throw new RangeError('a varint padded with zeros');
        if (!Number.isSafeInteger(value)) throw new RangeError(`integer beyond 2^53: ${value}`);
        return value;
      }
      scale *= 0x80;
    }
    throw new RangeError(`a varint longer than ${varintBytesMax} bytes`);
  }

  /** A flag byte: 0 or 1, nothing else. */
  boolean(): boolean {
    const byte = this.u8();
    if (byte > 1) throw new RangeError(`a flag of ${byte}`);
    return byte === 1;
  }

  /** Bytes preceded by their count (a view into the read bytes). */
  sized(): Uint8Array {
    const count = this.varint();
    this.need(count);
    const value = this.bytes.subarray(this.offset, this.offset + count);
    this.offset += count;
    return value;
  }

  /** Text preceded by its byte count; invalid UTF-8 throws. */
  text(): string {
    return decoder.decode(this.sized());
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
