/**
 * What a node's storage holds according to its trace (check (b) of `shardkv conform`), by the
 * one meaning of a save (spec/raft/persistence.ts applySave) and the sync duties of
 * spec/raft/types.ts SyncDuty. A `synced` record for step k makes durable every save of the
 * steps up to k (a sync covers everything buffered before it); the saves after it wait, and
 * a commitIndex-only hard state or a leader's own append may wait over several steps. A
 * restart must load the durable state, or it plus a prefix of the waiting saves (impl/README:
 * a crash keeps a prefix of the buffered calls, of one appendEntries possibly its first
 * entries only): a lost commitIndex-only hard state is such a prefix.
 */
import { applySave } from '../../spec/raft/persistence.js';
import type { Persisted, SaveEffect } from '../../spec/raft/types.js';
import { canonicalText } from './canonical.js';

/**
 * The storage with every command as its canonical text (the trace's JSON) and no snapshot
 * data: what a restart record is compared on.
 */
export type StoredState = Persisted<string, null>;

type TracedSave = SaveEffect<unknown, unknown>;

export const emptyStorage: StoredState = {
  hardState: { currentTerm: 0, votedFor: null, commitIndex: 0 }, snapshot: null, entries: [],
};

export function isSaveEffect(effect: unknown): effect is TracedSave {
  const type = (effect as { type?: unknown }).type;
  return type === 'saveSnapshot' || type === 'saveEntries' || type === 'saveHardState';
}

/** A save as the stored state takes it: commands as text, snapshots without data. */
function storedSave(save: TracedSave, entriesKept?: number): SaveEffect<string, null> {
  switch (save.type) {
    case 'saveHardState':
      return save;
    case 'saveSnapshot':
      return { ...save, snapshot: { ...save.snapshot, data: null } };
    case 'saveEntries': {
      const entries = save.entries.slice(0, entriesKept ?? save.entries.length);
      return { ...save, entries: entries.map(storedEntry) };
    }
  }
}

const storedEntry = (entry: { term: number; command: unknown }) =>
  ({ term: entry.term, command: canonicalText(entry.command ?? null) });

/** The storage after one save; `entriesKept` cuts a saveEntries to its first entries. */
export function applyTracedSave(state: StoredState, save: TracedSave, entriesKept?: number):
  StoredState {
  return applySave(state, storedSave(save, entriesKept));
}

export function storedOf(persisted: Persisted<unknown, unknown>): StoredState {
  const snapshot = persisted.snapshot;
  return {
    hardState: persisted.hardState,
    snapshot: snapshot === null ? null : { ...snapshot, data: null },
    entries: persisted.entries.map(storedEntry),
  };
}

export function sameStorage(a: StoredState, b: StoredState): boolean {
  if (JSON.stringify(a.hardState) !== JSON.stringify(b.hardState)) return false;
  const snapshot = (state: StoredState) => state.snapshot === null ? null
    : [state.snapshot.lastIncludedIndex, state.snapshot.lastIncludedTerm];
  if (JSON.stringify(snapshot(a)) !== JSON.stringify(snapshot(b))) return false;
  if (a.entries.length !== b.entries.length) return false;
  return a.entries.every((entry, index) =>
    entry.term === b.entries[index]!.term && entry.command === b.entries[index]!.command);
}

/** Every state a crash while `pending` waits may leave, `durable` first. */
export function crashOutcomes(durable: StoredState, pending: readonly TracedSave[]):
  StoredState[] {
  const outcomes = [durable];
  let state = durable;
  for (const save of pending) {
    if (save.type === 'saveEntries') {
      for (let kept = 0; kept < save.entries.length; kept++) {
        outcomes.push(applyTracedSave(state, save, kept));
      }
    }
    state = applyTracedSave(state, save);
    outcomes.push(state);
  }
  return outcomes;
}

export function describeStorage(state: StoredState): string {
  const last = state.entries.at(-1);
  const snapshot = state.snapshot === null ? null
    : { index: state.snapshot.lastIncludedIndex, term: state.snapshot.lastIncludedTerm };
  return `hardState ${JSON.stringify(state.hardState)}, snapshot ` +
    `${JSON.stringify(snapshot)}, ${state.entries.length} entries after it` +
    (last === undefined ? '' : ` (last of term ${last.term})`);
}
