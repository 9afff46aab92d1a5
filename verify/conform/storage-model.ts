/**
 * What a node's storage holds according to its trace (check (b) of `shardkv conform`): the
 * save effects of every Raft step whose persist the shell reported synced, applied in order,
 * as spec/raft/types.ts Effect defines them. A restart must load exactly that, or that plus
 * a prefix of the one step whose sync the crash interrupted (impl/README.md: a crash keeps a
 * prefix of the buffered calls, of one appendEntries possibly its first entries only).
 */
import type { Effect, HardState, Persisted } from '../../spec/raft/types.js';
import { canonicalText } from './canonical.js';

interface StoredEntry {
  readonly term: number;
  readonly text: string;
}

export interface StoredState {
  readonly hardState: HardState;
  readonly snapshot: { readonly index: number; readonly term: number } | null;
  /** The entries after the snapshot, in index order. */
  readonly entries: readonly StoredEntry[];
}

export const emptyStorage: StoredState = {
  hardState: { currentTerm: 0, votedFor: null, commitIndex: 0 }, snapshot: null, entries: [],
};

type SaveEffect = Extract<Effect<unknown, unknown>,
  { type: 'saveSnapshot' | 'saveEntries' | 'saveHardState' }>;

export function isSaveEffect(effect: unknown): effect is SaveEffect {
  const type = (effect as { type?: unknown }).type;
  return type === 'saveSnapshot' || type === 'saveEntries' || type === 'saveHardState';
}

const storedEntry = (entry: { term: number; command: unknown }): StoredEntry =>
  ({ term: entry.term, text: canonicalText(entry.command ?? null) });

/** The storage after one save; `entriesKept` cuts a saveEntries to its first entries. */
export function applySave(state: StoredState, save: SaveEffect, entriesKept?: number):
  StoredState {
  const first = (state.snapshot?.index ?? 0) + 1;
  switch (save.type) {
    case 'saveHardState':
      return { ...state, hardState: save.hardState };
    case 'saveSnapshot': {
      const index = save.snapshot.lastIncludedIndex;
      return {
        ...state, snapshot: { index, term: save.snapshot.lastIncludedTerm },
        entries: state.entries.slice(Math.max(0, index + 1 - first)),
      };
    }
    case 'saveEntries': {
      const kept = save.entries.slice(0, entriesKept ?? save.entries.length).map(storedEntry);
      return {
        ...state,
        entries: [...state.entries.slice(0, Math.max(0, save.fromIndex - first)), ...kept],
      };
    }
  }
}

export function storedOf(persisted: Persisted<unknown, unknown>): StoredState {
  const snapshot = persisted.snapshot;
  return {
    hardState: persisted.hardState,
    snapshot: snapshot === null ? null
      : { index: snapshot.lastIncludedIndex, term: snapshot.lastIncludedTerm },
    entries: persisted.entries.map(storedEntry),
  };
}

export function sameStorage(a: StoredState, b: StoredState): boolean {
  if (JSON.stringify(a.hardState) !== JSON.stringify(b.hardState)) return false;
  if (JSON.stringify(a.snapshot) !== JSON.stringify(b.snapshot)) return false;
  if (a.entries.length !== b.entries.length) return false;
  return a.entries.every((entry, index) =>
    entry.term === b.entries[index]!.term && entry.text === b.entries[index]!.text);
}

/** Every state a crash during the sync of `pending` may leave, `durable` first. */
export function crashOutcomes(durable: StoredState, pending: readonly SaveEffect[]):
  StoredState[] {
  const outcomes = [durable];
  let state = durable;
  for (const save of pending) {
    if (save.type === 'saveEntries') {
      for (let kept = 0; kept < save.entries.length; kept++) {
        outcomes.push(applySave(state, save, kept));
      }
    }
    state = applySave(state, save);
    outcomes.push(state);
  }
  return outcomes;
}

export function describeStorage(state: StoredState): string {
  const last = state.entries.at(-1);
  return `hardState ${JSON.stringify(state.hardState)}, snapshot ` +
    `${JSON.stringify(state.snapshot)}, ${state.entries.length} entries after it` +
    (last === undefined ? '' : ` (last of term ${last.term})`);
}
