/**
 * A binary encoding of the JSON-like values the protocol carries (commands inside Raft
 * entries, snapshot data, replies): a version byte, then one tagged value. Decoding gives
 * what the JSON codec (node/json-maps.ts) gives for the same value: ordered maps come back as
 * B+ trees, object fields JSON would leave out are left out, array holes and non-finite
 * numbers become null, -0 becomes 0. Byte arrays go as raw bytes (JSON has no such value).
 * Lone UTF-16 surrogates are not kept (UTF-8 cannot hold them; JSON's escapes can).
 *
 * Decoding input from a peer or a disk checks everything: a malformed value is a CodecError,
 * never a partly built value, and nesting is bounded so hostile input cannot exhaust the stack.
 */
import { BTreeMap } from '../../spec/group/btree-map.js';
import type { MapKey } from '../../spec/group/ordered-map.js';
import { isOrderedMap } from '../node/json-maps.js';
import { isOmitted } from '../node/json-pieces.js';
import { CodecError, StreamReader, StreamWriter } from './byte-stream.js';

export const valueCodecVersion = 1;
/** Deeper than any value the protocol builds; JSON.parse's own limit is far higher. */
export const nestingDepthMax = 64;

enum Tag {
  Null = 0,
  False = 1,
  True = 2,
  Integer = 3,
  Float = 4,
  String = 5,
  Array = 6,
  Object = 7,
  Map = 8,
  Bytes = 9,
}

/** Integers below this magnitude go as zigzag varints (doubled, they stay exact). */
const integerMagnitudeMax = 2 ** 52;

function writeNumber(writer: StreamWriter, value: number): void {
  if (!Number.isFinite(value)) return writer.u8(Tag.Null);
  if (Number.isInteger(value) && Math.abs(value) < integerMagnitudeMax) {
    writer.u8(Tag.Integer);
    return writer.signed(value === 0 ? 0 : value);
  }
  writer.u8(Tag.Float);
  writer.float64(value);
}

function writeValue(writer: StreamWriter, value: unknown, depth: number): void {
  if (depth > nestingDepthMax) throw new CodecError('value nested too deeply');
  if (value === null || isOmitted(value)) return writer.u8(Tag.Null);
  switch (typeof value) {
    case 'boolean':
      return writer.u8(value ? Tag.True : Tag.False);
    case 'number':
      return writeNumber(writer, value);
    case 'string':
      writer.u8(Tag.String);
      return writer.string(value);
    case 'object':
      return writeObject(writer, value, depth);
    default:
      throw new CodecError(`a ${typeof value} has no encoding`);
  }
}

function writeObject(writer: StreamWriter, value: object, depth: number): void {
  if (value instanceof Uint8Array) {
    writer.u8(Tag.Bytes);
    return writer.bytes(value);
  }
  if (Array.isArray(value)) {
    writer.u8(Tag.Array);
    writer.varint(value.length);
    for (const element of value) writeValue(writer, element, depth + 1);
    return;
  }
  if (isOrderedMap(value)) {
    writer.u8(Tag.Map);
    writer.varint(value.size);
    for (const [key, entry] of value.entries()) {
      writeValue(writer, key, depth + 1);
      writeValue(writer, entry, depth + 1);
    }
    return;
  }
  const fields = Object.entries(value).filter(([, field]) => !isOmitted(field));
  writer.u8(Tag.Object);
  writer.varint(fields.length);
  for (const [key, field] of fields) {
    writer.string(key);
    writeValue(writer, field, depth + 1);
  }
}

function readValue(reader: StreamReader, depth: number): unknown {
  if (depth > nestingDepthMax) throw new CodecError('value nested too deeply');
  const tag = reader.u8();
  switch (tag) {
    case Tag.Null: return null;
    case Tag.False: return false;
    case Tag.True: return true;
    case Tag.Integer: return reader.signed();
    case Tag.Float: return readFloat(reader);
    case Tag.String: return reader.string();
    case Tag.Array: return readArray(reader, depth);
    case Tag.Object: return readObject(reader, depth);
    case Tag.Map: return readMap(reader, depth);
    case Tag.Bytes: return reader.bytes().slice();
    default: throw new CodecError(`unknown value tag ${tag}`);
  }
}

function readFloat(reader: StreamReader): number {
  const value = reader.float64();
  if (!Number.isFinite(value)) throw new CodecError('a non-finite number');
  return value;
}

function readArray(reader: StreamReader, depth: number): unknown[] {
  const length = reader.varint();
  const array: unknown[] = [];
  // Each element takes at least one byte, so a lying length runs out of input, not memory.
  for (let index = 0; index < length; index++) array.push(readValue(reader, depth + 1));
  return array;
}

function readObject(reader: StreamReader, depth: number): Record<string, unknown> {
  const count = reader.varint();
  const object: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) {
    const key = reader.string();
    if (Object.hasOwn(object, key)) throw new CodecError(`field ${key} twice`);
    const field = readValue(reader, depth + 1);
    // A field named __proto__ is a field, as JSON.parse makes it, not a prototype.
    if (key === '__proto__') {
      Object.defineProperty(object, key, { value: field, enumerable: true, writable: true,
        configurable: true });
    } else {
      object[key] = field;
    }
  }
  return object;
}

/** Keys strictly ascending and of one primitive type, as json-maps demands of a $map. */
function readMap(reader: StreamReader, depth: number): BTreeMap<MapKey, unknown> {
  const count = reader.varint();
  let map = BTreeMap.empty<MapKey, unknown>();
  let previous: MapKey | undefined;
  for (let index = 0; index < count; index++) {
    const key = readValue(reader, depth + 1);
    if (typeof key !== 'string' && typeof key !== 'number') throw new CodecError('bad map key');
    if (previous !== undefined && (typeof key !== typeof previous || !(previous < key))) {
      throw new CodecError('map keys must ascend strictly');
    }
    map = map.set(key, readValue(reader, depth + 1));
    previous = key;
  }
  return map;
}

export function encodeValue(value: unknown): Uint8Array {
  const writer = new StreamWriter();
  writer.u8(valueCodecVersion);
  writeValue(writer, value, 0);
  return writer.finish();
}

/** The value in `bytes`; throws a CodecError when they are not exactly one encoded value. */
export function decodeValue(bytes: Uint8Array): unknown {
  const reader = new StreamReader(bytes);
  const version = reader.u8();
  if (version !== valueCodecVersion) throw new CodecError(`value codec version ${version}`);
  const value = readValue(reader, 0);
  if (!reader.atEnd) throw new CodecError('bytes after the value');
  return value;
}
