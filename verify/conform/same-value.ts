/**
 * Whether two values have the same canonical text (canonical.ts) without writing either:
 * conform compares every record's effects with the spec's, and building both texts was a
 * quarter of its time (issue 23 item 4). The text is still written when they differ, to show.
 * As in JSON, object fields that are undefined do not count and an undefined array item is
 * null; key order does not count; ordered maps compare as their entry lists.
 */
import { isOrderedMap, mapTag } from '../../impl/node/json-maps.js';

type Fields = Record<string, unknown>;

const isPlain = (value: object): boolean => Object.getPrototypeOf(value) === Object.prototype;

/** A map as the object its JSON text stands for, `{"$map": [[key, value], ...]}`. */
function asJsonObject(value: object): object {
  if (!isOrderedMap(value)) return value;
  return { [mapTag]: Array.from(value.entries(), ([key, entry]) => [key, entry]) };
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    if (!sameValue(a[index] ?? null, b[index] ?? null)) return false;
  }
  return true;
}

/** Field by field; `skippedInB` (if any) is a field of `b` that does not count. */
function sameFields(a: Fields, b: Fields, skippedInB?: string): boolean {
  let defined = 0;
  for (const key in a) {
    const value = a[key];
    if (value === undefined) continue;
    defined++;
    if (key === skippedInB || b[key] === undefined || !sameValue(value, b[key])) return false;
  }
  for (const key in b) if (b[key] !== undefined && key !== skippedInB) defined--;
  return defined === 0;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return false;
  }
  const aIsArray = Array.isArray(a);
  if (aIsArray && Array.isArray(b)) return sameItems(a as unknown[], b as unknown[]);
  if (isPlain(a) && isPlain(b)) return sameFields(a as Fields, b as Fields);
  if (isOrderedMap(a) || isOrderedMap(b)) return sameValue(asJsonObject(a), asJsonObject(b));
  return false;
}

/**
 * Whether the spec's effects are the recorded ones, where a recorded send carries the trace's
 * message id (which the spec does not make): sameValue of the lists with those ids left out,
 * without copying every recorded effect to leave them out.
 */
export function sameEffects(spec: readonly unknown[], recorded: readonly unknown[]): boolean {
  if (spec.length !== recorded.length) return false;
  for (let index = 0; index < spec.length; index++) {
    const a = spec[index] ?? null;
    const b = recorded[index] ?? null;
    const isSend = typeof b === 'object' && b !== null && isPlain(b) &&
      (b as Fields).type === 'send';
    if (!isSend) {
      if (!sameValue(a, b)) return false;
    } else if (typeof a !== 'object' || a === null || !isPlain(a) ||
      !sameFields(a as Fields, b as Fields, 'id')) {
      return false;
    }
  }
  return true;
}
