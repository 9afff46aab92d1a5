/**
 * Varints, strings and byte arrays for the binary codec (value-codec.ts). A varint is an
 * unsigned LEB128 of at most 8 bytes (56 bits, enough for any safe integer); signed integers
 * are zigzag-mapped first. Reading past the end or a too-long varint throws a CodecError,
 * which decoders turn into "malformed".
 */
export class CodecError extends Error {
  override name = 'CodecError';
}

const varintBytesMax = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export class StreamWriter {
  private buffer = new Uint8Array(256);
  private view = new DataView(this.buffer.buffer);
  private length = 0;

  u8(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  /** A non-negative safe integer. */
  varint(value: number): void {
    this.reserve(varintBytesMax);
    while (value >= 0x80) {
      this.buffer[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buffer[this.length++] = value;
  }

  /** A safe integer, zigzag-mapped so that small negatives stay short. */
  signed(value: number): void {
    this.varint(value < 0 ? -value * 2 - 1 : value * 2);
  }

  float64(value: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.reserve(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  /** UTF-8 with a length prefix; ASCII (the common case) skips the TextEncoder call. */
  string(value: string): void {
    if (value.length < 64 && isAscii(value)) {
      this.varint(value.length);
      this.reserve(value.length);
      for (let index = 0; index < value.length; index++) {
        this.buffer[this.length++] = value.charCodeAt(index);
      }
      return;
    }
    this.bytes(encoder.encode(value));
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

function isAscii(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    if (value.charCodeAt(index) >= 0x80) return false;
  }
  return true;
}

export class StreamReader {
  private readonly view: DataView;
  private offset = 0;

  constructor(private readonly input: Uint8Array) {
    this.view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  }

  get atEnd(): boolean {
    return this.offset === this.input.length;
  }

  u8(): number {
    this.need(1);
    return this.input[this.offset++]!;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let count = 0; count < varintBytesMax; count++) {
      const byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (!Number.isSafeInteger(value)) throw new CodecError('varint beyond 2^53');
        return value;
      }
      scale *= 0x80;
    }
    throw new CodecError('varint longer than 8 bytes');
  }

  signed(): number {
    const mapped = this.varint();
    return mapped % 2 === 0 ? mapped / 2 : -(mapped + 1) / 2;
  }

  float64(): number {
    this.need(8);
    const value = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return value;
  }

  /** A view into the input, not a copy. */
  bytes(): Uint8Array {
    const length = this.varint();
    this.need(length);
    const value = this.input.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  /** Short ASCII (most keys and names) is read by hand: TextDecoder's call costs more. */
  string(): string {
    const bytes = this.bytes();
    if (bytes.length < 32) {
      let text = '';
      for (let index = 0; index < bytes.length; index++) {
        const byte = bytes[index]!;
        if (byte >= 0x80) return decodeUtf8(bytes);
        text += String.fromCharCode(byte);
      }
      return text;
    }
    return decodeUtf8(bytes);
  }

  private need(count: number): void {
    if (this.offset + count > this.input.length) throw new CodecError('field beyond the end');
  }
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new CodecError('a string that is not UTF-8');
  }
}
