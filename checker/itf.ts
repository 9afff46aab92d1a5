/**
 * Values in the Informal Trace Format (ITF, Apalache ADR-015), as Quint and Apalache read
 * them: integers as {"#bigint": "n"}, Sets as {"#set": [...]}, Maps as {"#map": [[k, v]...]},
 * arrays as sequences, plain objects as records. A plain object whose keys are all integers
 * (gid -> servers) is a function of integers, so a map too: TLA+ records have names for
 * fields. An object with an `entries()` method (the spec's ordered maps) is a map too. ITF
 * has no null: null is Quint's `None`, {"tag": "None", "value": {"#tup": []}}. Sets and maps
 * are written in a canonical order, so equal values encode to equal JSON.
 */
export type ItfValue =
  | boolean
  | string
  | readonly ItfValue[]
  | { readonly '#bigint': string }
  | { readonly '#set': readonly ItfValue[] }
  | { readonly '#map': readonly (readonly [ItfValue, ItfValue])[] }
  | { readonly '#tup': readonly ItfValue[] }
  | { readonly '#unserializable': string }
  | { readonly [field: string]: ItfValue };

const maximumNesting = 64;

/** How null is written: the None of Quint's Option type. */
export const itfNone: ItfValue = { tag: 'None', value: { '#tup': [] } };

const integerKey = /^(0|-?[1-9]\d*)$/;

function isIntegerKeyed(keys: readonly string[]): boolean {
  return keys.length > 0 && keys.every((key) => integerKey.test(key));
}

function sortEntries(entries: [ItfValue, ItfValue][]): [ItfValue, ItfValue][] {
  return entries.sort((a, b) => compareText(JSON.stringify(a[0]), JSON.stringify(b[0])));
}

/** A map that is not a Map: an ordered map of the spec (its `entries()` ascend by key). */
interface EntriesMap {
  entries(): Iterable<readonly [unknown, unknown]>;
}

function isEntriesMap(value: unknown): value is EntriesMap {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Partial<EntriesMap>).entries === 'function'
  );
}

export function toItfValue(value: unknown, nesting = 0): ItfValue {
  if (nesting > maximumNesting) return { '#unserializable': 'nested too deeply' };
  const inner = (item: unknown) => toItfValue(item, nesting + 1);
  if (typeof value === 'number') {
    return Number.isInteger(value)
      ? { '#bigint': String(value) }
      : { '#unserializable': String(value) };
  }
  if (typeof value === 'bigint') return { '#bigint': value.toString() };
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(inner);
  if (value instanceof Set) return { '#set': sortCanonically([...value].map(inner)) };
  if (value === null) return itfNone;
  if (value instanceof Map || isEntriesMap(value)) {
    const entries = [...(value as EntriesMap).entries()];
    return { '#map': sortEntries(entries.map(([key, item]) => [inner(key), inner(item)])) };
  }
  if (typeof value === 'object') {
    const defined = Object.entries(value).filter(([, item]) => item !== undefined);
    if (isIntegerKeyed(defined.map(([key]) => key))) {
      return {
        '#map': sortEntries(defined.map(([key, item]) => [{ '#bigint': key }, inner(item)])),
      };
    }
    const record: Record<string, ItfValue> = {};
    for (const [field, item] of Object.entries(value)) {
      if (item !== undefined) record[field] = inner(item);
    }
    return record;
  }
  return { '#unserializable': String(value) };
}

/**
 * A value read from a trace written before nulls and integer-keyed maps had their own
 * encoding (`{"#unserializable": "null"}`, records with fields "1", "2"), in today's form.
 */
export function upgradeItfValue(value: unknown, nesting = 0): ItfValue {
  if (nesting > maximumNesting || typeof value !== 'object' || value === null) {
    return value as ItfValue;
  }
  const inner = (item: unknown) => upgradeItfValue(item, nesting + 1);
  if (Array.isArray(value)) return value.map(inner);
  const record = value as Record<string, unknown>;
  if (record['#unserializable'] === 'null') return itfNone;
  const keys = Object.keys(record);
  if (keys.some((key) => key.startsWith('#'))) {
    const [tag] = keys as [string];
    const items = record[tag];
    if (tag === '#set' || tag === '#tup') {
      return { [tag]: (items as unknown[]).map(inner) } as ItfValue;
    }
    if (tag === '#map') {
      const entries = items as [unknown, unknown][];
      return { '#map': entries.map(([key, item]) => [inner(key), inner(item)]) } as ItfValue;
    }
    return value as ItfValue;
  }
  if (isIntegerKeyed(keys)) {
    return {
      '#map': sortEntries(keys.map((key) => [{ '#bigint': key }, inner(record[key])])),
    };
  }
  const upgraded: Record<string, ItfValue> = {};
  for (const key of keys) upgraded[key] = inner(record[key]);
  return upgraded;
}

function sortCanonically(values: ItfValue[]): ItfValue[] {
  return values
    .map((value) => [JSON.stringify(value), value] as const)
    .sort((a, b) => compareText(a[0], b[0]))
    .map(([, value]) => value);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface ItfTrace {
  readonly '#meta': Record<string, unknown>;
  readonly vars: readonly string[];
  readonly states: readonly Record<string, unknown>[];
}

/** An ITF trace of states given as ITF-encoded variable records. */
export function itfTrace(
  description: string,
  source: string,
  states: readonly Record<string, ItfValue>[],
  labels: readonly string[],
): ItfTrace {
  return {
    '#meta': {
      format: 'ITF',
      'format-description': 'https://apalache-mc.org/docs/adr/015adr-trace.html',
      source,
      description,
    },
    vars: Object.keys(states[0] ?? {}),
    states: states.map((state, index) => ({
      '#meta': { index, ...(index > 0 ? { action: labels[index - 1] } : {}) },
      ...state,
    })),
  };
}

/** An ITF value in TLA+ notation, for people: 4, "x", {1, 2}, [a |-> 1], <<1, 2>>, (k :> v). */
export function itfToText(value: unknown, nesting = 0): string {
  if (nesting > maximumNesting) return '...';
  const inner = (item: unknown) => itfToText(item, nesting + 1);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object' || value === null) return String(value);
  if (Array.isArray(value)) return `<<${value.map(inner).join(', ')}>>`;
  const record = value as Record<string, unknown>;
  if ('#bigint' in record) return String(record['#bigint']);
  if ('#set' in record) return `{${(record['#set'] as unknown[]).map(inner).join(', ')}}`;
  if ('#tup' in record) return `<<${(record['#tup'] as unknown[]).map(inner).join(', ')}>>`;
  if ('#unserializable' in record) return String(record['#unserializable']);
  if (JSON.stringify(record) === JSON.stringify(itfNone)) return 'None';
  if ('#map' in record) {
    const entries = record['#map'] as [unknown, unknown][];
    if (entries.length === 0) return '<<>>';
    return `(${entries.map(([key, item]) => `${inner(key)} :> ${inner(item)}`).join(' @@ ')})`;
  }
  const fields = Object.entries(record).map(([field, item]) => `${field} |-> ${inner(item)}`);
  return `[${fields.join(', ')}]`;
}
