/** Turns commands and snapshot data into bytes for the disk, and back. */
export interface Codec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** JSON in UTF-8: the default, good for plain data (records, arrays, strings, numbers). */
export function jsonCodec<T>(): Codec<T> {
  return {
    encode: (value) => encoder.encode(JSON.stringify(value)),
    decode: (bytes) => JSON.parse(decoder.decode(bytes)) as T,
  };
}
