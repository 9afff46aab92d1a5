/**
 * Where two ITF values differ, field by field: `servers[2].currentTerm: 1 -> 2`. Traces print
 * a step as these differences instead of reprinting a whole `servers` value, and replay names
 * the field a recorded state gets wrong.
 *
 * Paths: `.field` for a record field, `[key]` for a map entry, and `[i]` for the element at
 * position i of a sequence counting from 0, as the states' own ids count (CONTRACT numbers
 * shards 0..S-1, and shards[3] is shard 3), not from 1 as TLA+ sequences do.
 * Records, sequences of equal length and maps with the same keys are descended into; any
 * other change (a set, a sequence that grew, a scalar) is reported whole at its path.
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
function children(value: ItfValue): Entries | null {
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

function sameShape(before: Entries, after: Entries): boolean {
  return (
    before.length === after.length && before.every(([key], index) => key === after[index]![0])
  );
}

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
  type Pending = [path: string, before: ItfValue | undefined, after: ItfValue | undefined];
  const stack: Pending[] = names
    .map((name): Pending => [name, before[name], after[name]])
    .reverse();
  while (stack.length > 0 && found.length < maximumDifferences) {
    const [path, old, next] = stack.pop()!;
    if (sameJson(old, next)) continue;
    const oldChildren = old === undefined ? null : children(old);
    const nextChildren = next === undefined ? null : children(next);
    const isSequence = Array.isArray(old) === Array.isArray(next);
    if (oldChildren && nextChildren && isSequence && sameShape(oldChildren, nextChildren)) {
      for (let index = oldChildren.length - 1; index >= 0; index--) {
        const [suffix, item] = oldChildren[index]!;
        stack.push([path + suffix, item, nextChildren[index]![1]]);
      }
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
