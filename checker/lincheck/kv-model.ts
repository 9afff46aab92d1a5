/**
 * The sequential key/value store of the MIT lab as a model: get returns the value (a missing
 * key reads ""), put replaces it, append concatenates. Keys are independent, so the model
 * partitions a history by key and each key's state is one string.
 *
 * Strings are interned and a state is a node of a ValueTree (the value as a chain of appends),
 * so `step`, `equal` and `hash` are O(1) except a get's comparison with its output, and the
 * memoisation cache stores numbers.
 */
import { ok as assert } from 'node:assert';
import type { HistoryOperation } from './history.js';
import type { Operation, Partition, SequentialModel } from './model.js';
import { ValueTree } from './value-tree.js';

/** Small integers rather than strings: the search's hot loop switches on them. */
export const KeyValueKind = { Get: 0, Put: 1, Append: 2 } as const;
export type KeyValueKind = (typeof KeyValueKind)[keyof typeof KeyValueKind];

export interface KeyValueInput {
  readonly kind: KeyValueKind;
  readonly key: string;
  /** The interned value of a put or append; -1 for a get. */
  readonly value: number;
}

/** A put or append value: the id of an interned string. */
export type StringId = number;

/** A get's output stays a plain string: it is compared once per step, never hashed. */
export type KeyValueOperation = Operation<KeyValueInput, string>;

/** Interns the history's put and append values: one table per check. */
export class StringTable {
  private readonly ids = new Map<string, StringId>();
  private readonly strings: string[] = [];

  intern(text: string): StringId {
    const known = this.ids.get(text);
    if (known !== undefined) return known;
    const id = this.strings.length;
    this.strings.push(text);
    this.ids.set(text, id);
    return id;
  }

  text(id: StringId): string {
    const text = this.strings[id];
    assert(text !== undefined, `string id ${id} is interned`);
    return text;
  }
}

/** A state is a ValueTree node: the key's value. */
export function createKeyValueModel(
  strings: StringTable,
): SequentialModel<number, KeyValueInput, string> {
  const tree = new ValueTree(strings);
  return {
    name: 'kv',
    init: () => 0,
    step(state, input, output) {
      switch (input.kind) {
        case KeyValueKind.Get:
          return output === undefined || tree.spells(state, output) ? state : undefined;
        case KeyValueKind.Put:
          return tree.append(0, input.value);
        case KeyValueKind.Append:
          return tree.append(state, input.value);
      }
    },
    readOnly: (input) => input.kind === KeyValueKind.Get,
    hash: (state) => state,
    equal: (left, right) => left === right,
    partition: partitionByKey,
    bytes: () => tree.bytes,
    describeOperation(operation) {
      const { kind, key, value } = operation.input;
      const call = kind === KeyValueKind.Get ? `get(${quoted(key)})` : `${kindName(kind)}(`
        + `${quoted(key)}, ${quoted(strings.text(value))})`;
      const result = operation.output === undefined
        ? (operation.return === Infinity ? ' (outcome unknown)' : '')
        : ` -> ${quoted(operation.output)}`;
      return `client ${operation.client}: ${call}${result}`;
    },
    describeState: (state) => quoted(tree.text(state)),
  };
}

/** Runs of one character this long or longer are shown by their length. */
const runShownAsCount = 16;
const longRun = new RegExp(`(.)\\1{${runShownAsCount - 1},}`, 'gsu');

/**
 * A value in JSON quotes, with each long run of one character written as its count: a
 * padded value of a large-value run (`<c2.12>` and 4,089 dots) stays one readable line.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(longRun, (run, character: string) =>
    `${character}{${[...run].length} x}`);
}

export function kindName(kind: KeyValueKind): 'get' | 'put' | 'append' {
  return kind === KeyValueKind.Get ? 'get' : kind === KeyValueKind.Put ? 'put' : 'append';
}

/** Splits by key, keys in order of first appearance (deterministic for a given file). */
function partitionByKey(
  operations: readonly KeyValueOperation[],
): readonly Partition<KeyValueInput, string>[] {
  const byKey = new Map<string, KeyValueOperation[]>();
  for (const operation of operations) {
    const list = byKey.get(operation.input.key);
    if (list) list.push(operation);
    else byKey.set(operation.input.key, [operation]);
  }
  return [...byKey].map(([name, list]) => ({ name, operations: list }));
}

/**
 * The search's operations for a parsed history. A get whose outcome is unknown constrains
 * nothing (it changes no state and nobody saw its output), so it is left out; so is a write
 * of unknown outcome that no get saw (unobservedWrites).
 */
export function keyValueOperations(
  history: readonly HistoryOperation[],
  strings: StringTable,
  /** History indexes left out; a test passes none to compare the verdicts. */
  leftOut: ReadonlySet<number> = unobservedWrites(history),
): KeyValueOperation[] {
  const operations: KeyValueOperation[] = [];
  history.forEach((entry, id) => {
    if (entry.op === 'get' && entry.outcome === 'unknown') return;
    if (leftOut.has(id)) return;
    const kind = entry.op === 'get' ? KeyValueKind.Get
      : entry.op === 'put' ? KeyValueKind.Put : KeyValueKind.Append;
    operations.push({
      id,
      client: entry.client,
      input: {
        kind, key: entry.key,
        value: entry.value === undefined ? -1 : strings.intern(entry.value),
      },
      output: entry.op === 'get' ? entry.output : undefined,
      call: entry.call,
      return: entry.outcome === 'unknown' ? Infinity : entry.return!,
    });
  });
  return operations;
}

/** Characters of gets' outputs searched for unknown writes' values, at most (see below). */
const observedSearchCharactersMax = 2 ** 31;

/**
 * The put and append operations of unknown outcome whose value occurs in no get's output of
 * their key (history indexes). Leaving them out decides the same verdict, and spares the search
 * every order of them (seed 1's undecided histories of issue 23 were such writes by the
 * hundred). Why exact: such a write W may take effect never, so the history without it
 * linearizable makes the history with it so (W last: its return is unbounded). Conversely,
 * in a linearization with W, the state from W to the next put contains W's value, so no get
 * lies there (none read it); the appends and puts there are accepted in any state, so
 * dropping W leaves every step accepted. An empty value is contained in every output and is
 * kept. The search for values costs their count times the outputs' length: above a budget
 * every write is kept, which is exact too, only slower.
 */
export function unobservedWrites(history: readonly HistoryOperation[]): Set<number> {
  const outputs = new Map<string, string[]>();
  const unknown: number[] = [];
  let outputCharacters = 0;
  history.forEach((entry, id) => {
    if (entry.op === 'get') {
      if (entry.output === undefined || entry.output === '') return;
      const list = outputs.get(entry.key);
      if (list) list.push(entry.output);
      else outputs.set(entry.key, [entry.output]);
      outputCharacters += entry.output.length;
    } else if (entry.outcome === 'unknown') {
      unknown.push(id);
    }
  });
  const found = new Set<number>();
  if (unknown.length * outputCharacters > observedSearchCharactersMax) return found;
  // One text per key; NUL separates outputs, so a value without NUL matches inside one output.
  const joined = new Map([...outputs].map(([key, list]) => [key, list.join('\u0000')] as const));
  for (const id of unknown) {
    const { key, value } = history[id]!;
    if (value === undefined || value === '') continue;
    const text = joined.get(key) ?? '';
    const seen = value.includes('\u0000')
      ? outputs.get(key)?.some((output) => output.includes(value)) === true
      : text.includes(value);
    if (!seen) found.add(id);
  }
  return found;
}
