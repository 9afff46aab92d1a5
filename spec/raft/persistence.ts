/**
 * What a node writes to its disk and reads back (Raft paper §5.1, §7; etcd's Ready and
 * Storage): the save effects of a step, computed from the node before and after it so that
 * a disk writes only what changed (the hard state when it changed, the entries from the first
 * changed index, a new snapshot), and the restart from exactly what was saved.
 */
import { assert } from '../assert.js';
import { entriesBetween, entryAt, lastLogIndex, snapshotIndex } from './log.js';
import { initialNode } from './node.js';
import { restartTimerEffects } from './timers.js';
import type { Effect, HardState, Persisted, RaftNode, RaftOptions, Step } from './types.js';

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
  return { type: 'saveEntries', fromIndex: same + 1, entries: after.log.slice(same - base) };
}

/** The save effects of a step from `before` to `after`, in the order the disk performs them. */
export function saveEffects<C, S>(
  before: RaftNode<C, S>,
  after: RaftNode<C, S>,
  options: RaftOptions,
): Effect<C, S>[] {
  assert(snapshotIndex(after) >= snapshotIndex(before), 'a snapshot never goes back');
  const effects: Effect<C, S>[] = [];
  if (after.snapshot !== before.snapshot && after.snapshot !== null) {
    effects.push({ type: 'saveSnapshot', snapshot: after.snapshot });
  }
  const entries = changedEntries(before, after);
  if (entries !== null) effects.push(entries);
  const hardState = hardStateOf(after, options);
  if (!sameHardState(hardStateOf(before, options), hardState)) {
    effects.push({ type: 'saveHardState', hardState });
  }
  return effects;
}

/**
 * Restart after a crash from what the storage holds: role, votes and the leader's indexes
 * are volatile and lost. The application restarts from the snapshot and the committed entries
 * after it, which the node hands it again; the follower's timers start (timers.ts).
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
    log: entries,
    snapshot,
  };
  const base = snapshotIndex(restarted);
  const commitIndex = Math.max(base, hardState.commitIndex);
  assert(commitIndex <= lastLogIndex(restarted), `saved commit ${commitIndex} beyond the log`);
  const effects: Effect<C, S>[] = [];
  if (snapshot !== null) effects.push({ type: 'restoreSnapshot', snapshot });
  if (commitIndex > base) {
    effects.push({ type: 'apply', entries: entriesBetween(restarted, base, commitIndex) });
  }
  effects.push(...restartTimerEffects<C, S>(options));
  return { node: { ...restarted, commitIndex }, effects };
}
