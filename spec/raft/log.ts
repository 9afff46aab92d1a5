/**
 * Log arithmetic over a compacted log (Raft paper §7): entries up to the snapshot's
 * lastIncludedIndex live only in the snapshot; `log` holds the ones after it.
 */
import { assert } from '../assert.js';
import type { Entry, HardState, IndexedEntry } from './types.js';

export function lastLogIndex(state: HardState): number {
  return state.snapshot.lastIncludedIndex + state.log.length;
}

export function lastLogTerm(state: HardState): number {
  const last = state.log[state.log.length - 1];
  return last ? last.term : state.snapshot.lastIncludedTerm;
}

/** The term of entry `index`, or undefined when it is compacted away or beyond the log. */
export function termAt(state: HardState, index: number): number | undefined {
  const base = state.snapshot.lastIncludedIndex;
  if (index === base) return state.snapshot.lastIncludedTerm;
  if (index < base || index > lastLogIndex(state)) return undefined;
  return state.log[index - base - 1]!.term;
}

/** The entry at `index` when it is still in the log (not compacted). */
export function entryAt(state: HardState, index: number): Entry | undefined {
  return state.log[index - state.snapshot.lastIncludedIndex - 1];
}

/** The value at `index`, from the snapshot or the log; undefined beyond the log. */
export function valueAt(state: HardState, index: number): number | undefined {
  if (index <= state.snapshot.lastIncludedIndex) return state.snapshot.values[index - 1];
  return entryAt(state, index)?.value;
}

/** Entries (from, to] with their indexes, for an `apply` effect. */
export function entriesBetween(state: HardState, from: number, to: number): IndexedEntry[] {
  assert(from >= state.snapshot.lastIncludedIndex, 'applying entries that were compacted');
  const entries: IndexedEntry[] = [];
  for (let index = from + 1; index <= to; index++) {
    const entry = entryAt(state, index);
    assert(entry !== undefined, `no entry ${index} to apply`);
    entries.push({ index, term: entry.term, value: entry.value });
  }
  return entries;
}

/** §5.4.1: a candidate's log is at least as up-to-date as the voter's. */
export function isUpToDate(voter: HardState, lastIndex: number, lastTerm: number): boolean {
  const voterTerm = lastLogTerm(voter);
  return lastTerm > voterTerm || (lastTerm === voterTerm && lastIndex >= lastLogIndex(voter));
}
