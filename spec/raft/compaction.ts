/**
 * Log compaction (Raft paper §7): the application snapshots its state after some applied
 * index and the node drops the log before it; a leader whose follower needs compacted entries
 * sends its snapshot instead (InstallSnapshot, in one message). The snapshot's data is the
 * application's (S); Raft only carries it. Handlers of step.ts.
 */
import { assert } from '../assert.js';
import { lastLogIndex, logAfter, snapshotIndex, termAt } from './log.js';
import { emptyLogEntries } from './log-entries.js';
import { becomeFollower } from './node.js';
import { appendAccepted, windowOf, withProgress } from './progress.js';
import type { Effect, Message, RaftNode, RaftOptions, Snapshot, Step } from './types.js';

type InstallSnapshotRequest<C, S> = Extract<Message<C, S>, { type: 'InstallSnapshotRequest' }>;
type InstallSnapshotResponse<C, S> = Extract<Message<C, S>, { type: 'InstallSnapshotResponse' }>;

/**
 * The application took a snapshot after applying `index` (it applies only committed entries,
 * so index <= commitIndex): the node keeps it and the entries after it. An index at or below
 * the current snapshot changes nothing.
 */
export function handleSnapshotTaken<C, S>(
  node: RaftNode<C, S>,
  index: number,
  data: S,
): Step<C, S> {
  assert(index <= node.commitIndex, `snapshot at ${index} beyond commit ${node.commitIndex}`);
  const base = snapshotIndex(node);
  if (index <= base) return { node, effects: [] };
  const lastIncludedTerm = termAt(node, index)!;
  const snapshot: Snapshot<S> = { lastIncludedIndex: index, lastIncludedTerm, data };
  return { node: { ...node, snapshot, log: logAfter(node, index) }, effects: [] };
}

/** The leader's snapshot for a follower whose next index is already compacted. */
export function snapshotRequestTo<C, S>(node: RaftNode<C, S>, peer: number): Effect<C, S> {
  assert(node.snapshot !== null, 'a log without a snapshot holds every entry');
  const message: Message<C, S> = {
    type: 'InstallSnapshotRequest',
    term: node.currentTerm,
    snapshot: node.snapshot,
  };
  return { type: 'send', to: peer, message };
}

/**
 * A follower takes a snapshot newer than what it has committed: it keeps the log after the
 * snapshot when its entry at lastIncludedIndex has the same term, else drops the whole log,
 * and hands the data to the application. The bug snapshot-rollback compares the snapshot with
 * the follower's own snapshot instead of its commit index.
 */
export function handleInstallSnapshotRequest<C, S>(
  node: RaftNode<C, S>,
  from: number,
  request: InstallSnapshotRequest<C, S>,
  options: RaftOptions,
): Step<C, S> {
  const reply = (term: number, matchIndex: number): Effect<C, S> => ({
    type: 'send',
    to: from,
    message: { type: 'InstallSnapshotResponse', term, matchIndex },
  });
  if (request.term < node.currentTerm) return { node, effects: [reply(node.currentTerm, 0)] };
  // Two leaders of one term only exist under a bug; ElectionSafety reports them.
  if (node.role === 'leader') return { node, effects: [] };
  const follower =
    node.role === 'follower'
      ? { ...node, leader: from }
      : becomeFollower(node, node.currentTerm, from);
  const snapshot = request.snapshot;
  const effects: Effect<C, S>[] = [{ type: 'setTimer', timer: 'election' }];
  const held =
    options.bugs?.['snapshot-rollback'] === true ? snapshotIndex(follower) : follower.commitIndex;
  if (snapshot.lastIncludedIndex <= held) {
    effects.push(reply(follower.currentTerm, snapshot.lastIncludedIndex));
    return { node: follower, effects };
  }
  const keep = termAt(follower, snapshot.lastIncludedIndex) === snapshot.lastIncludedTerm;
  const log = keep ? logAfter(follower, snapshot.lastIncludedIndex) : emptyLogEntries<C>();
  const next = { ...follower, snapshot, log, commitIndex: snapshot.lastIncludedIndex };
  effects.push({ type: 'restoreSnapshot', snapshot });
  effects.push(reply(next.currentTerm, snapshot.lastIncludedIndex));
  return { node: next, effects };
}

/** The leader learns the follower now matches up to the snapshot. */
export function handleInstallSnapshotResponse<C, S>(
  node: RaftNode<C, S>,
  from: number,
  response: InstallSnapshotResponse<C, S>,
  options: RaftOptions,
): Step<C, S> {
  if (response.term !== node.currentTerm || node.role !== 'leader') return { node, effects: [] };
  const window = windowOf(options);
  const progress = appendAccepted(node.progress[from]!, response.matchIndex, window);
  // With flow control nothing else sends what waits after it: ask to send soon.
  const lagging = window !== null && progress.next <= lastLogIndex(node);
  const effects: Effect<C, S>[] = lagging ? [{ type: 'sendSoon' }] : [];
  return { node: withProgress(node, from, progress), effects };
}
