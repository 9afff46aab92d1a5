/**
 * JSON for values that hold ordered maps (a group's state, an image in an install command or
 * a freeze reply): a map is written as `{"$map": [[key, value], ...]}` in key order and read
 * back as a B+ tree (spec/group/btree-map.ts), the runtime's map. The same text goes to the
 * disk (commands, snapshots) and over the wire (Raft entries, InstallSnapshot, replies).
 * Decoding input from a peer validates every map and throws on a malformed one; the callers
 * turn that into a refused frame or a reported corrupt record.
 */
import { BTreeMap } from '../../spec/group/btree-map.js';
import type { MapKey, OrderedMap } from '../../spec/group/ordered-map.js';

export const mapTag = '$map';

export function isOrderedMap(value: unknown): value is OrderedMap<MapKey, unknown> {
  return typeof value === 'object' && value !== null && 'entries' in value && 'set' in value &&
    typeof (value as { entries: unknown }).entries === 'function';
}

function replacer(_key: string, value: unknown): unknown {
  if (!isOrderedMap(value)) return value;
  return { [mapTag]: Array.from(value.entries(), ([key, entry]) => [key, entry]) };
}

/** A `$map` object rebuilt as a B+ tree; keys strictly ascending, of one primitive type. */
function reviveMap(pairs: unknown): BTreeMap<MapKey, unknown> {
  if (!Array.isArray(pairs)) throw new Error('a $map holds an array of pairs');
  let map = BTreeMap.empty<MapKey, unknown>();
  let previous: MapKey | undefined;
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) throw new Error('a $map pair is [key, value]');
    const key: unknown = pair[0];
    if (typeof key !== 'string' && typeof key !== 'number') throw new Error('bad $map key');
    if (previous !== undefined && (typeof key !== typeof previous || !(previous < key))) {
      throw new Error('$map keys must ascend strictly');
    }
    map = map.set(key, pair[1]);
    previous = key;
  }
  return map;
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  if (!Object.hasOwn(value, mapTag)) return value;
  if (Object.keys(value).length !== 1) throw new Error('a $map object has no other field');
  return reviveMap((value as Record<string, unknown>)[mapTag]);
}

export function stringifyWithMaps(value: unknown): string {
  return JSON.stringify(value, replacer);
}

/**
 * The text of a log entry's command, computed once per command object: a leader writes each
 * command to its WAL and sends it to every follower, often more than once. Commands are never
 * changed after they are made, so the text stays right for the object's lifetime.
 */
const commandTexts = new WeakMap<object, string>();

export function commandText(command: unknown): string {
  if (typeof command !== 'object' || command === null) return stringifyWithMaps(command);
  let text = commandTexts.get(command);
  if (text === undefined) {
    text = stringifyWithMaps(command);
    commandTexts.set(command, text);
  }
  return text;
}

const commandByteCache = new WeakMap<object, Uint8Array>();

/**
 * commandText in UTF-8, likewise computed once per command object: a leader sends a large
 * entry to every follower, often more than once, and encoding a megabyte each time held up
 * its heartbeats (issue 27). The bytes are shared: callers copy them, never change them.
 */
export function commandBytes(command: unknown): Uint8Array {
  if (typeof command !== 'object' || command === null) return encoder.encode(commandText(command));
  let bytes = commandByteCache.get(command);
  if (bytes === undefined) {
    bytes = encoder.encode(commandText(command));
    commandByteCache.set(command, bytes);
  }
  return bytes;
}

/** Parses JSON text, rebuilding maps; throws on malformed text or a malformed map. */
export function parseWithMaps(text: string): unknown {
  // Most frames hold no map; the plain parse is several times faster than one with a reviver.
  return (text.includes(`"${mapTag}"`) ? JSON.parse(text, reviver) : JSON.parse(text)) as unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A storage codec (impl/io/codec.ts) of JSON with maps, for commands and snapshot data. */
export function mapJsonCodec<T>() {
  return {
    encode: (value: T): Uint8Array => commandBytes(value),
    decode: (bytes: Uint8Array): T => parseWithMaps(decoder.decode(bytes)) as T,
  };
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

/** UTF-8 bytes to text; throws on invalid UTF-8. */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
