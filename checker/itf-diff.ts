/**
 * Where two ITF values differ, field by field: `servers[2].currentTerm: 1 -> 2`. Traces print
 * a step as these differences instead of reprinting a whole `servers` value, and replay names
 * the field a recorded state gets wrong.
 *
 * Paths: `.field` for a record field, `[key]` for a map entry, and `[i]` for the element at
 * position i of a sequence counting from 0, as the states' own ids count (CONTRACT numbers
 * shards 0..S-1, and shards[3] is shard 3), not from 1 as TLA+ sequences do.
 * Records with the same fields, sequences and maps are descended into (an element or key on
 * one side only is reported as added or removed); any other change (a set, a scalar, a value
 * of another kind) is reported whole at its path.
 */
import { itfToText, type ItfValue } from './itf.js';

export interface Difference {
  readonly path: string;
  readonly before: ItfValue | undefined;
  readonly after: ItfValue | undefined;
}

/** More than this many differences in one step are summarised (a bound, not a guess). */
export const maximumDifferences = 200;

type Entries = readonly (readonly [string, ItfValue])[];

/** The children of a value that can be descended into, keyed by their path suffix. */
export function children(value: ItfValue): Entries | null {
  if (Array.isArray(value)) {
    return (value as readonly ItfValue[]).map((item, index) => [`[${index}]`, item] as const);
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  if ('#map' in record) {
    const entries = record['#map'] as readonly (readonly [ItfValue, ItfValue])[];
    return entries.map(([key, item]) => [`[${itfToText(key)}]`, item] as const);
  }
  if (Object.keys(record).some((field) => field.startsWith('#'))) return null;
  return Object.entries(record as Record<string, ItfValue>).map(
    ([field, item]) => [`.${field}`, item] as const,
  );
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

type Pending = [path: string, before: ItfValue | undefined, after: ItfValue | undefined];

/**
 * The pairs to compare under two values, or null when they are compared whole: records with
 * the same fields and maps by key (a key on one side only is added or removed), sequences by
 * position (an element past the end of one side is added or removed).
 */
function pairedChildren(path: string, old: ItfValue, next: ItfValue): Pending[] | null {
  const oldChildren = children(old);
  const nextChildren = children(next);
  if (!oldChildren || !nextChildren) return null;
  const isMap = (value: ItfValue) => typeof value === 'object' && value !== null && '#map' in value;
  const kind = (value: ItfValue) =>
    Array.isArray(value) ? 'sequence' : isMap(value) ? 'map' : 'record';
  if (kind(old) !== kind(next)) return null;
  if (kind(old) === 'record') {
    const sameFields =
      oldChildren.length === nextChildren.length &&
      oldChildren.every(([key], index) => key === nextChildren[index]![0]);
    if (!sameFields) return null;
  }
  const before = new Map(oldChildren);
  const after = new Map(nextChildren);
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  if (kind(old) === 'sequence') keys.sort((a, b) => positionOf(a) - positionOf(b));
  return keys.map((key): Pending => [path + key, before.get(key), after.get(key)]);
}

const positionOf = (suffix: string) => Number(suffix.slice(1, -1));

/**
 * The differences between two records of variables, in variable order, each at the deepest
 * path where the shapes still agree. Iterative with an explicit stack (no recursion here).
 */
export function differences(
  before: Readonly<Record<string, ItfValue>>,
  after: Readonly<Record<string, ItfValue>>,
): Difference[] {
  const found: Difference[] = [];
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const stack: Pending[] = names
    .map((name): Pending => [name, before[name], after[name]])
    .reverse();
  while (stack.length > 0 && found.length < maximumDifferences) {
    const [path, old, next] = stack.pop()!;
    if (sameJson(old, next)) continue;
    const pairs = old === undefined || next === undefined ? null : pairedChildren(path, old, next);
    if (pairs) {
      for (let index = pairs.length - 1; index >= 0; index--) stack.push(pairs[index]!);
      continue;
    }
    found.push({ path, before: old, after: next });
  }
  return found;
}

/** `path: old -> new` in TLA+-like notation; an absent side prints as `(none)`. */
export function formatDifference(difference: Difference): string {
  const text = (value: ItfValue | undefined) => (value === undefined ? '(none)' : itfToText(value));
  return `${difference.path}: ${text(difference.before)} -> ${text(difference.after)}`;
}
