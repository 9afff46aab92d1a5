/**
 * An entry's size for flow control (RaftOptions.maxBytesPerAppend, maxInflightBytes): about
 * the length of its JSON text, computed from the value alone so that the runtime, conform's
 * replay and the models agree (a command is the application's, Raft does not know its shape).
 * A string counts its UTF-16 length (O(1), no encoding), a number 8, anything else 1 plus
 * its parts; an ordered map (a shard image's) counts as its wire form `{"$map": [[k, v]]}`
 * does once parsed as plain JSON, so both representations measure the same.
 */
import type { Entry } from './types.js';

const mapTagBytes = '$map'.length;

type Entries = { entries(): Iterable<readonly [unknown, unknown]> };

function isOrderedMap(value: object): value is Entries {
  return 'entries' in value && 'set' in value &&
    typeof (value as { entries: unknown }).entries === 'function';
}

export function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number') return 8;
  if (typeof value !== 'object' || value === null) return 1;
  let bytes = 1;
  if (Array.isArray(value)) {
    for (const item of value) bytes += valueBytes(item);
  } else if (isOrderedMap(value)) {
    bytes += mapTagBytes + 1;
    for (const [key, item] of value.entries()) bytes += 1 + valueBytes(key) + valueBytes(item);
  } else {
    for (const [key, item] of Object.entries(value)) bytes += key.length + valueBytes(item);
  }
  return bytes;
}

export function entryBytes(entry: Entry<unknown>): number {
  return 8 + valueBytes(entry.command);
}
