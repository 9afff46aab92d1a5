/**
 * What a node writes to its disk and reads back (Raft paper §5.1, §7; etcd's Ready, Storage
 * and MustSync): the save effects of a step, computed from the node before and after it so
 * that a disk writes only what changed (the hard state when it changed, the entries from the
 * first changed index, a new snapshot), each with the sync duty of types.ts SyncDuty; what a
 * save does to the storage (applySave); the report of a sync (`logDurable`); and the restart
 * from exactly what was durable.
 */
import { assert } from '../assert.js';
import {
  entriesBetween,
  entriesFrom,
  entryAt,
  lastLogIndex,
  lastLogTerm,
  persistedLog,
  snapshotIndex,
  type LogHolder,
} from './log.js';
import { logEntriesOf } from './log-entries.js';
import { initialNode } from './node.js';
import { restartTimerEffects } from './timers.js';
import type {
  Effect, HardState, Input, Persisted, RaftNode, RaftOptions, SaveEffect, Step, SyncDuty,
} from './types.js';

/** The hard state a node saves; the bug forget-vote-on-restart leaves the vote out. */
export function hardStateOf(node: RaftNode<unknown, unknown>, options: RaftOptions): HardState {
  return {
    currentTerm: node.currentTerm,
    votedFor: options.bugs?.['forget-vote-on-restart'] === true ? null : node.votedFor,
    commitIndex: node.commitIndex,
  };
}

function sameHardState(a: HardState, b: HardState): boolean {
  return (
    a.currentTerm === b.currentTerm && a.votedFor === b.votedFor && a.commitIndex === b.commitIndex
  );
}

/**
 * The entries to save: from the first index at which the logs differ. Handlers only ever keep
 * a prefix of the log (the same entry objects) and append after it, so scanning down from the
 * end of the shorter log to the first shared entry finds it; an append costs one comparison.
 */
function changedEntries<C, S>(before: RaftNode<C, S>, after: RaftNode<C, S>): Effect<C, S> | null {
  const base = snapshotIndex(after);
  const beforeLast = lastLogIndex(before);
  const afterLast = lastLogIndex(after);
  let same = Math.min(beforeLast, afterLast);
  while (same > base && entryAt(before, same) !== entryAt(after, same)) same--;
  same = Math.max(same, base);
  if (same >= beforeLast && same >= afterLast) return null;
  // A leader only ever appends to its log (§5.3), and only its own entries (§10.2.1).
  const sync: SyncDuty = after.role === 'leader' ? 'thenReport' : 'beforeSends';
  assert(sync === 'beforeSends' || same >= beforeLast, 'a leader never truncates its log');
  return { type: 'saveEntries', fromIndex: same + 1, entries: entriesFrom(after, same + 1), sync };
}

/**
 * The save effects of a step from `before` to `after`, in the order the disk performs them,
 * each with its sync duty (types.ts SyncDuty): a hard state that changes the term or the vote
 * must be durable before any later send, one that only advances commitIndex rides the next
 * sync; a leader's entries are reported, anyone else's precede the sends; a snapshot (taken
 * or installed) precedes the sends.
 */
export function saveEffects<C, S>(
  before: RaftNode<C, S>,
  after: RaftNode<C, S>,
  options: RaftOptions,
): Effect<C, S>[] {
  assert(snapshotIndex(after) >= snapshotIndex(before), 'a snapshot never goes back');
  const effects: Effect<C, S>[] = [];
  if (after.snapshot !== before.snapshot && after.snapshot !== null) {
    effects.push({ type: 'saveSnapshot', snapshot: after.snapshot, sync: 'beforeSends' });
  }
  const entries = changedEntries(before, after);
  if (entries !== null) effects.push(entries);
  const saved = hardStateOf(before, options);
  const hardState = hardStateOf(after, options);
  if (!sameHardState(saved, hardState)) {
    const onlyCommit =
      saved.currentTerm === hardState.currentTerm && saved.votedFor === hardState.votedFor;
    const sync: SyncDuty = onlyCommit ? 'withNext' : 'beforeSends';
    effects.push({ type: 'saveHardState', hardState, sync });
  }
  return effects;
}

/** Whether the sends after `effects` must wait for a sync (one of them is `beforeSends`). */
export function mustSyncBeforeSends(effects: readonly Effect<unknown, unknown>[]): boolean {
  return effects.some((effect) => 'sync' in effect && effect.sync === 'beforeSends');
}

/** Whether a sync covering `effects` must be followed by a `logDurable` report. */
export function mustReport(effects: readonly Effect<unknown, unknown>[]): boolean {
  return effects.some((effect) => 'sync' in effect && effect.sync === 'thenReport');
}

/**
 * What one save does to a node's storage (the meaning of a save, types.ts Effect): the model's
 * disk and conform's storage model compute with it; the runtime's write-ahead log implements
 * the same calls as records (impl/wal).
 */
export function applySave<C, S>(persisted: Persisted<C, S>, save: SaveEffect<C, S>):
  Persisted<C, S> {
  const base = persisted.snapshot === null ? 0 : persisted.snapshot.lastIncludedIndex;
  switch (save.type) {
    case 'saveSnapshot': {
      const dropped = Math.max(0, save.snapshot.lastIncludedIndex - base);
      return { ...persisted, snapshot: save.snapshot, entries: persisted.entries.slice(dropped) };
    }
    case 'saveEntries': {
      assert(save.fromIndex > base, `saveEntries at ${save.fromIndex} inside the snapshot`);
      assert(save.fromIndex <= base + persisted.entries.length + 1, 'saveEntries leaves a gap');
      const kept = persisted.entries.slice(0, save.fromIndex - base - 1);
      return { ...persisted, entries: kept.concat(save.entries) };
    }
    case 'saveHardState':
      return { ...persisted, hardState: save.hardState };
  }
}

/**
 * The report of a sync after which the log of `holder` (a node's, or a storage's through
 * persistedLog) is durable: its last entry (types.ts Input).
 */
export function logDurableInput(holder: LogHolder<unknown, unknown>):
  Extract<Input<unknown, unknown>, { type: 'logDurable' }> {
  return { type: 'logDurable', index: lastLogIndex(holder), term: lastLogTerm(holder) };
}

/**
 * Why a node must not restart from `persisted`, or null if it may: a saved commit index beyond
 * the last index the snapshot and the entries hold. Raft need not save the commit index
 * (§5.1), but a saved one is evidence: every save writes the entries before the hard state
 * that commits them, so the storage lost entries (a snapshot with them) that this replica had
 * made durable and acknowledged. Clamping the commit index would hide that loss; a replica
 * missing them may vote for, or count toward, a log without committed entries (the lost-disk
 * case of the dissertation §10.4). The storage refuses such a state as damage.
 */
export function restartRefusal(persisted: Persisted<unknown, unknown>): string | null {
  const last = lastLogIndex(persistedLog(persisted));
  const commit = persisted.hardState.commitIndex;
  if (commit <= last) return null;
  return `saved commit ${commit} beyond the log, which ends at ${last}: ` +
    'entries this replica made durable are lost';
}

/**
 * Restart after a crash from what the storage holds (the storage refuses a state that
 * restartRefusal rejects, so here one is a broken assumption): role, votes and the leader's
 * indexes are volatile and lost. The application restarts from the snapshot and the committed
 * entries after it, which the node hands it again; the follower's timers start (timers.ts).
 */
export function restartNode<C, S>(
  node: RaftNode<C, S>,
  persisted: Persisted<C, S>,
  options: RaftOptions,
): Step<C, S> {
  const { hardState, snapshot, entries } = persisted;
  const restarted: RaftNode<C, S> = {
    ...initialNode<C, S>(node.id, node.clusterSize),
    currentTerm: hardState.currentTerm,
    votedFor: hardState.votedFor,
    log: logEntriesOf(entries),
    snapshot,
  };
  const refusal = restartRefusal(persisted);
  assert(refusal === null, refusal ?? '');
  const base = snapshotIndex(restarted);
  const commitIndex = Math.max(base, hardState.commitIndex);
  const effects: Effect<C, S>[] = [];
  if (snapshot !== null) effects.push({ type: 'restoreSnapshot', snapshot });
  if (commitIndex > base) {
    effects.push({ type: 'apply', entries: entriesBetween(restarted, base, commitIndex) });
  }
  effects.push(...restartTimerEffects<C, S>(options));
  return { node: { ...restarted, commitIndex }, effects };
}
