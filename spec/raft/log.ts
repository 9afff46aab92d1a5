/**
 * Log arithmetic over a compacted log (Raft paper §7): entries up to the snapshot's
 * lastIncludedIndex live only in the snapshot; `log` holds the ones after it, as a persistent
 * vector (log-entries.ts) that a batch appends to without copying the log. These functions
 * read it by Raft index; the handlers change it with log-entries.ts's, by position.
 */
import { assert } from '../assert.js';
import {
  emptyLogEntries,
  logEntriesFrom,
  logEntriesOf,
  logEntriesSlice,
  logEntryAt,
  type LogEntries,
} from './log-entries.js';
import type { Entry, IndexedEntry, Persisted, Snapshot } from './types.js';

/** The part of a node (or of what it persisted) that holds its log. */
export interface LogHolder<C, S> {
  readonly log: LogEntries<C>;
  readonly snapshot: Snapshot<S> | null;
}

/** What a storage holds, as a holder of its log: O(1) for up to 32 entries, else O(n). */
export function persistedLog<C, S>(
  persisted: Pick<Persisted<C, S>, 'snapshot' | 'entries'>,
): LogHolder<C, S> {
  return { log: logEntriesOf(persisted.entries), snapshot: persisted.snapshot };
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
  const last = logEntryAt(holder.log, holder.log.length - 1);
  return last ? last.term : snapshotTerm(holder);
}

/** The term of entry `index`, or undefined when it is compacted away or beyond the log. */
export function termAt(holder: LogHolder<unknown, unknown>, index: number): number | undefined {
  const base = snapshotIndex(holder);
  if (index === base) return snapshotTerm(holder);
  if (index < base || index > lastLogIndex(holder)) return undefined;
  return logEntryAt(holder.log, index - base - 1)!.term;
}

/** The entry at `index` when it is still in the log (not compacted). */
export function entryAt<C>(holder: LogHolder<C, unknown>, index: number): Entry<C> | undefined {
  if (index <= snapshotIndex(holder)) return undefined;
  return logEntryAt(holder.log, index - snapshotIndex(holder) - 1);
}

/** The entries from index `from` to the end of the log, as an array (a save, a message). */
export function entriesFrom<C>(holder: LogHolder<C, unknown>, from: number): Entry<C>[] {
  const base = snapshotIndex(holder);
  assert(from > base && from <= lastLogIndex(holder) + 1, `no entries from ${from}`);
  return logEntriesSlice(holder.log, from - base - 1, holder.log.length);
}

/**
 * The entries after index `index`, for a snapshot at `index` (§7); none when the log does not
 * reach past it.
 */
export function logAfter<C>(holder: LogHolder<C, unknown>, index: number): LogEntries<C> {
  const base = snapshotIndex(holder);
  assert(index >= base, `a snapshot at ${index} behind the one at ${base}`);
  if (index >= lastLogIndex(holder)) return emptyLogEntries();
  return logEntriesFrom(holder.log, index - base);
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
