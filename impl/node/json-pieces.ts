/**
 * The text of stringifyWithMaps (json-maps.ts) as UTF-8 pieces of about `pieceBytes`, produced
 * one at a time: a snapshot of megabytes is serialised between pauses (WalStorage's
 * prepareSnapshot) instead of in one stretch that blocks the node's timers. The bytes are
 * those of the one-piece encoding exactly. Ordered maps, arrays and plain objects are walked;
 * anything else (strings, numbers, objects with a toJSON) is a leaf handed to
 * stringifyWithMaps, with JSON.stringify's rules for what a leaf of undefined becomes; a long
 * string is cut in slices.
 */
import { encodeText, isOrderedMap, mapJsonCodec, mapTag, stringifyWithMaps } from './json-maps.js';

const pieceBytes = 64 * 1024;

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * A long string's JSON text in pieces: JSON escapes one character at a time, so the pieces of
 * the slices are the whole's, as long as no cut splits a surrogate pair.
 */
function* stringPieces(value: string): Generator<string, void, undefined> {
  yield '"';
  for (let start = 0; start < value.length;) {
    let end = Math.min(value.length, start + pieceBytes);
    const last = value.charCodeAt(end - 1);
    if (end < value.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield JSON.stringify(value.slice(start, end)).slice(1, -1);
    start = end;
  }
  yield '"';
}

/** The JSON text of `value`, in pieces in order (callers leave out what JSON omits). */
function* textPieces(value: unknown): Generator<string, void, undefined> {
  if (typeof value === 'string' && value.length > pieceBytes) {
    yield* stringPieces(value);
    return;
  }
  if (typeof value !== 'object' || value === null) {
    yield stringifyWithMaps(value) ?? 'null';
    return;
  }
  if (isOrderedMap(value)) {
    yield `{"${mapTag}":[`;
    let first = true;
    for (const pair of value.entries()) {
      if (!first) yield ',';
      first = false;
      yield* textPieces([pair[0], pair[1]]);
    }
    yield ']}';
  } else if (Array.isArray(value)) {
    yield '[';
    for (const [index, element] of value.entries()) {
      if (index > 0) yield ',';
      yield* textPieces(isOmitted(element) ? null : element);
    }
    yield ']';
  } else if (isPlainObject(value)) {
    yield '{';
    let first = true;
    for (const [key, field] of Object.entries(value)) {
      if (isOmitted(field)) continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* textPieces(field);
    }
    yield '}';
  } else {
    yield stringifyWithMaps(value);
  }
}

/** stringifyWithMaps(value) in UTF-8, as pieces of about pieceBytes (one leaf may be more). */
export function* jsonPiecesWithMaps(value: unknown): Generator<Uint8Array, void, undefined> {
  let buffered: string[] = [];
  let bufferedLength = 0;
  for (const text of textPieces(value)) {
    buffered.push(text);
    bufferedLength += text.length;
    if (bufferedLength >= pieceBytes) {
      yield encodeText(buffered.join(''));
      buffered = [];
      bufferedLength = 0;
    }
  }
  if (bufferedLength > 0) yield encodeText(buffered.join(''));
}

/** mapJsonCodec for snapshot data, which also encodes in pieces (WalStorage SnapshotCodec). */
export function mapJsonSnapshotCodec<T>() {
  return { ...mapJsonCodec<T>(), encodePieces: (value: T) => jsonPiecesWithMaps(value) };
}
