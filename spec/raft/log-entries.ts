/**
 * The entries of a Raft log as a persistent vector (Bagwell's and Clojure's: a trie of
 * 32-wide arrays plus a tail of up to 32 entries), so that an append copies at most the tail
 * and one path of the trie, not the whole log (issue 21 item 4). A value never changes once
 * built: every function returns a new one that shares the arrays it did not change, so the
 * checker may keep old states. The shape is a function of the length alone (the canonical
 * one an append of every entry in turn builds), so equal logs are equal records, and it is
 * plain data (arrays and a record): it clones, prints and compares like the array it stands
 * for. Positions count from 0 (log.ts maps Raft indexes to them).
 */
import { assert } from '../assert.js';
import type { Entry } from './types.js';

const bits = 5;
const width = 1 << bits;
const slotMask = width - 1;

/** A trie node: at level 0 a leaf of entries, above it up to 32 nodes of the level below. */
type Trie = readonly unknown[];

export interface LogEntries<C> {
  readonly length: number;
  /** The level of the root times 5: its children are leaves at 5, nodes of level 5 at 10... */
  readonly shift: number;
  /** The first `trieLength(length)` entries, in full leaves of 32. */
  readonly root: Trie;
  /** The entries after them: 1 to 32 of them (none when the log is empty). */
  readonly tail: readonly Entry<C>[];
}

const empty: LogEntries<never> = { length: 0, shift: bits, root: [], tail: [] };

export function emptyLogEntries<C>(): LogEntries<C> {
  return empty;
}

/** How many of `length` entries the trie holds: all but the last 1 to 32. */
function trieLength(length: number): number {
  return length === 0 ? 0 : ((length - 1) >>> bits) << bits;
}

/** The array that holds position `position`, at offset `position & 31` in it. */
function leafOf<C>(log: LogEntries<C>, position: number): readonly Entry<C>[] {
  if (position >= trieLength(log.length)) return log.tail;
  let node = log.root;
  for (let level = log.shift; level > 0; level -= bits) {
    node = node[(position >>> level) & slotMask] as Trie;
  }
  return node as readonly Entry<C>[];
}

/** The entry at `position`, or undefined outside 0..length-1 (as an array's would be). */
export function logEntryAt<C>(log: LogEntries<C>, position: number): Entry<C> | undefined {
  if (!(position >= 0 && position < log.length)) return undefined;
  return leafOf(log, position)[position & slotMask];
}

/** The entries at positions from..to-1 as a new array (an empty one when from >= to). */
export function logEntriesSlice<C>(log: LogEntries<C>, from: number, to: number): Entry<C>[] {
  assert(from >= 0 && to <= log.length, `slice ${from}..${to} outside ${log.length} entries`);
  const entries: Entry<C>[] = [];
  let position = from;
  while (position < to) {
    const leaf = leafOf(log, position);
    const end = Math.min(to, (position | slotMask) + 1);
    for (; position < end; position++) entries.push(leaf[position & slotMask]!);
  }
  return entries;
}

export function logEntriesArray<C>(log: LogEntries<C>): Entry<C>[] {
  return logEntriesSlice(log, 0, log.length);
}

/**
 * The trie with the full leaf `leaf` added after its first `count` entries (a multiple of
 * 32): copies the path to it, and adds a level when the trie is full.
 */
function withLeaf<C>(root: Trie, shift: number, count: number, leaf: readonly Entry<C>[]) {
  let top: unknown[];
  let levels = shift;
  if (count === 1 << (shift + bits)) {
    top = [root];
    levels += bits;
  } else {
    top = root.slice();
  }
  let parent = top;
  for (let level = levels; level > bits; level -= bits) {
    const slot = (count >>> level) & slotMask;
    const child = parent[slot] as Trie | undefined;
    const copy = child === undefined ? [] : child.slice();
    parent[slot] = copy;
    parent = copy;
  }
  parent[(count >>> bits) & slotMask] = leaf;
  return { root: top as Trie, shift: levels };
}

/** The log with `added` appended: copies the tail and, per 32 entries, one path. */
export function appendedLogEntries<C>(
  log: LogEntries<C>,
  added: readonly Entry<C>[],
): LogEntries<C> {
  if (added.length === 0) return log;
  let { root, shift } = log;
  let count = trieLength(log.length);
  let tail: Entry<C>[] = log.tail.slice();
  for (const entry of added) {
    if (tail.length === width) {
      ({ root, shift } = withLeaf(root, shift, count, tail));
      count += width;
      tail = [];
    }
    tail.push(entry);
  }
  const length = log.length + added.length;
  assert(count === trieLength(length) && tail.length === length - count, 'a canonical append');
  return { length, shift, root, tail };
}

/**
 * Entries given as an array, which the result may share (arrays in states never change). A
 * log of up to 32 entries is only a tail, so this costs nothing in the checker's small states.
 */
export function logEntriesOf<C>(entries: readonly Entry<C>[]): LogEntries<C> {
  if (entries.length === 0) return empty;
  if (entries.length > width) return appendedLogEntries(empty, entries);
  return { length: entries.length, shift: bits, root: empty.root, tail: entries };
}

/** The trie of the first `count` entries (a multiple of 32) of `root`, in canonical shape. */
function trieTaken(root: Trie, shift: number, count: number): { root: Trie; shift: number } {
  if (count === 0) return { root: [], shift: bits };
  let node = root;
  let levels = shift;
  // A root whose first child holds them all is one level too high.
  while (levels > bits && count <= 1 << levels) {
    node = node[0] as Trie;
    levels -= bits;
  }
  const last = count - 1;
  const top = node.slice(0, ((last >>> levels) & slotMask) + 1);
  let parent = top;
  for (let level = levels; level > bits; level -= bits) {
    const slot = (last >>> level) & slotMask;
    const trimmed = (parent[slot] as Trie).slice(0, ((last >>> (level - bits)) & slotMask) + 1);
    parent[slot] = trimmed;
    parent = trimmed;
  }
  return { root: top, shift: levels };
}

/** The first `count` entries (a truncation after a conflict, §5.3): O(log n) copies. */
export function firstLogEntries<C>(log: LogEntries<C>, count: number): LogEntries<C> {
  assert(Number.isInteger(count) && count >= 0 && count <= log.length,
    `keeping ${count} of ${log.length} entries`);
  if (count === log.length) return log;
  if (count === 0) return empty;
  const kept = trieLength(count);
  const tail = leafOf(log, kept).slice(0, count - kept);
  const { root, shift } = kept === trieLength(log.length) ? log
    : trieTaken(log.root, log.shift, kept);
  return { length: count, shift, root, tail };
}

/**
 * The entries from position `position` on (compaction drops the ones before, §7): a new log of
 * the kept entries, so that the dropped ones are freed; O(kept).
 */
export function logEntriesFrom<C>(log: LogEntries<C>, position: number): LogEntries<C> {
  assert(Number.isInteger(position) && position >= 0 && position <= log.length,
    `dropping ${position} of ${log.length} entries`);
  if (position === 0) return log;
  return logEntriesOf(logEntriesSlice(log, position, log.length));
}
