/**
 * The ordered map a group keeps its KV data and dedup records in, and the implementation the
 * `migration` model uses. Every update returns a new map and leaves the old one as it was, so
 * a state machine step copies nothing it does not change and a frozen image stays fixed while
 * the group goes on (DESIGN §3, Freeze).
 *
 * Two implementations: `SortedArrayMap` here (plain sorted arrays: the model's states encode
 * and compare canonically, and its maps hold a handful of entries) and `BTreeMap`
 * (btree-map.ts: O(log n) update with structural sharing, for the runtime's large shards).
 * A group starts with the empty maps it is given and derives every later map from them, so the
 * state machine never chooses an implementation.
 */
import { assert } from '../assert.js';

/** Keys compare with `<`: numbers numerically, strings by UTF-16 code units. */
export type MapKey = string | number;

export interface OrderedMap<K extends MapKey, V> {
  readonly size: number;
  get(key: K): V | undefined;
  /** The map with `key` bound to `value`; this one unchanged. */
  set(key: K, value: V): OrderedMap<K, V>;
  /** Every entry, ascending by key. */
  entries(): IterableIterator<readonly [K, V]>;
  /** The entries that `keep` accepts, as a map of the same implementation (O(n)). */
  filter(keep: (key: K, value: V) => boolean): OrderedMap<K, V>;
  /** The empty map of the same implementation. */
  empty(): OrderedMap<K, V>;
}

/** The first position whose key is not below `key` (binary search; `keys` ascending). */
export function lowerBound<K extends MapKey>(keys: readonly K[], key: K): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A map as two parallel sorted arrays: O(n) per update, which the model's few entries never
 * notice, and a plain, canonical value (equal maps have equal fields).
 */
export class SortedArrayMap<K extends MapKey, V> implements OrderedMap<K, V> {
  private constructor(
    readonly keys: readonly K[],
    readonly values: readonly V[],
  ) {}

  /** One shared empty map: the model builds many. */
  private static readonly emptyMap = new SortedArrayMap<never, never>([], []);

  static empty<K extends MapKey, V>(): SortedArrayMap<K, V> {
    return SortedArrayMap.emptyMap as SortedArrayMap<never, never> as SortedArrayMap<K, V>;
  }

  /**
   * A map of `keys` (strictly ascending) to `values`, position by position. It takes the
   * arrays as they are (the model's decoder builds many maps): the caller must not change
   * them afterwards.
   */
  static fromSorted<K extends MapKey, V>(keys: readonly K[], values: readonly V[]) {
    assert(keys.length === values.length, 'fromSorted: keys and values differ in length');
    for (let index = 1; index < keys.length; index++) {
      assert(keys[index - 1]! < keys[index]!, 'fromSorted: keys are not strictly ascending');
    }
    if (keys.length === 0) return SortedArrayMap.empty<K, V>();
    return new SortedArrayMap<K, V>(keys, values);
  }

  get size(): number {
    return this.keys.length;
  }

  get(key: K): V | undefined {
    const index = lowerBound(this.keys, key);
    return this.keys[index] === key ? this.values[index] : undefined;
  }

  set(key: K, value: V): SortedArrayMap<K, V> {
    const index = lowerBound(this.keys, key);
    const found = this.keys[index] === key;
    if (found && this.values[index] === value) return this;
    const keys = this.keys.slice();
    const values = this.values.slice();
    if (found) values[index] = value;
    else {
      keys.splice(index, 0, key);
      values.splice(index, 0, value);
    }
    return new SortedArrayMap(keys, values);
  }

  *entries(): IterableIterator<readonly [K, V]> {
    for (let index = 0; index < this.keys.length; index++) {
      yield [this.keys[index]!, this.values[index]!];
    }
  }

  filter(keep: (key: K, value: V) => boolean): SortedArrayMap<K, V> {
    const keys: K[] = [];
    const values: V[] = [];
    for (let index = 0; index < this.keys.length; index++) {
      if (!keep(this.keys[index]!, this.values[index]!)) continue;
      keys.push(this.keys[index]!);
      values.push(this.values[index]!);
    }
    return keys.length === this.keys.length ? this : new SortedArrayMap(keys, values);
  }

  empty(): SortedArrayMap<K, V> {
    return this.keys.length === 0 ? this : SortedArrayMap.empty();
  }
}

