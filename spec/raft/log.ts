/**
 * Log arithmetic over a compacted log (Raft paper §7): entries up to the snapshot's
 * lastIncludedIndex live only in the snapshot; `log` holds the ones after it.
 */
import { assert } from '../assert.js';
import type { Entry, IndexedEntry, Snapshot } from './types.js';

/** The part of a node (or of what it persisted) that holds its log. */
export interface LogHolder<C, S> {
  readonly log: readonly Entry<C>[];
  readonly snapshot: Snapshot<S> | null;
}

export function snapshotIndex(holder: LogHolder<unknown, unknown>): number {
  return holder.snapshot === null ? 0 : holder.snapshot.lastIncludedIndex;
}

export function snapshotTerm(holder: LogHolder<unknown, unknown>): number {
  return holder.snapshot === null ? 0 : holder.snapshot.lastIncludedTerm;
}

export function lastLogIndex(holder: LogHolder<unknown, unknown>): number {
  return snapshotIndex(holder) + holder.log.length;
}

export function lastLogTerm(holder: LogHolder<unknown, unknown>): number {
  const last = holder.log[holder.log.length - 1];
  return last ? last.term : snapshotTerm(holder);
}

/** The term of entry `index`, or undefined when it is compacted away or beyond the log. */
export function termAt(holder: LogHolder<unknown, unknown>, index: number): number | undefined {
  const base = snapshotIndex(holder);
  if (index === base) return snapshotTerm(holder);
  if (index < base || index > lastLogIndex(holder)) return undefined;
  return holder.log[index - base - 1]!.term;
}

/** The entry at `index` when it is still in the log (not compacted). */
export function entryAt<C>(holder: LogHolder<C, unknown>, index: number): Entry<C> | undefined {
  if (index <= snapshotIndex(holder)) return undefined;
  return holder.log[index - snapshotIndex(holder) - 1];
}

/** Entries (from, to] with their indexes, for an `apply` effect. */
export function entriesBetween<C>(
  holder: LogHolder<C, unknown>,
  from: number,
  to: number,
): IndexedEntry<C>[] {
  assert(from >= snapshotIndex(holder), 'applying entries that were compacted');
  const entries: IndexedEntry<C>[] = [];
  for (let index = from + 1; index <= to; index++) {
    const entry = entryAt(holder, index);
    assert(entry !== undefined, `no entry ${index} to apply`);
    entries.push({ index, term: entry.term, command: entry.command });
  }
  return entries;
}

/** The first index of the run of entries of term `term` that ends at `index` (§5.3 hint). */
export function firstIndexOfTerm(
  holder: LogHolder<unknown, unknown>,
  index: number,
  term: number,
): number {
  let first = index;
  while (first - 1 > snapshotIndex(holder) && termAt(holder, first - 1) === term) first--;
  return first;
}

/** The last index holding an entry of `term`, or undefined (§5.3 hint, leader side). */
export function lastIndexOfTerm(
  holder: LogHolder<unknown, unknown>,
  term: number,
): number | undefined {
  for (let index = lastLogIndex(holder); index > snapshotIndex(holder); index--) {
    const held = termAt(holder, index)!;
    if (held === term) return index;
    if (held < term) return undefined;
  }
  return undefined;
}

/** §5.4.1: a candidate's log is at least as up-to-date as the voter's. */
export function isUpToDate(
  voter: LogHolder<unknown, unknown>,
  lastIndex: number,
  lastTerm: number,
): boolean {
  const voterTerm = lastLogTerm(voter);
  return lastTerm > voterTerm || (lastTerm === voterTerm && lastIndex >= lastLogIndex(voter));
}
