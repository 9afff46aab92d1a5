/**
 * One Raft node's state and its role changes, each in one place as etcd's becomeFollower /
 * becomePreCandidate / becomeCandidate / becomeLeader (Raft paper §5.2, dissertation §6.4 and
 * §9.6). Role changes only reset state; the handlers decide when they happen.
 */
import { assert } from '../assert.js';
import { lastLogIndex } from './log.js';
import { appendedLogEntries, emptyLogEntries } from './log-entries.js';
import { initialProgress } from './progress.js';
import type { RaftNode } from './types.js';

/** A node that has never run: term 0, empty log, no snapshot. */
export function initialNode<C, S>(id: number, clusterSize: number): RaftNode<C, S> {
  assert(Number.isInteger(clusterSize) && clusterSize >= 1, `bad cluster size ${clusterSize}`);
  assert(Number.isInteger(id) && id >= 0 && id < clusterSize, `server ${id} outside the cluster`);
  return {
    id,
    clusterSize,
    currentTerm: 0,
    votedFor: null,
    log: emptyLogEntries(),
    snapshot: null,
    role: 'follower',
    commitIndex: 0,
    leader: null,
    votesGranted: 0,
    progress: [],
    recentlyActive: 0,
    readSequence: 0,
    pendingReads: [],
  };
}

export function quorum(clusterSize: number): number {
  return Math.floor(clusterSize / 2) + 1;
}

export function countVotes(mask: number): number {
  let count = 0;
  for (let bits = mask; bits !== 0; bits &= bits - 1) count++;
  return count;
}

/** The volatile leader and candidate state a role change resets (a leader's progress too). */
function resetVolatile<C, S>(node: RaftNode<C, S>): RaftNode<C, S> {
  return { ...node, votesGranted: 0, recentlyActive: 0, readSequence: 0, pendingReads: [],
    progress: [] };
}

/**
 * Follower of `term`, knowing `leader` (null when unknown): forgets the vote when the term
 * is new. Pending reads are dropped here; the step refuses them (step.ts).
 */
export function becomeFollower<C, S>(
  node: RaftNode<C, S>,
  term: number,
  leader: number | null,
): RaftNode<C, S> {
  assert(term >= node.currentTerm, 'a node never goes back in term');
  const newTerm = term > node.currentTerm;
  return {
    ...resetVolatile(node),
    role: 'follower',
    currentTerm: term,
    votedFor: newTerm ? null : node.votedFor,
    leader,
  };
}

/** Pre-candidate (§9.6): asks whether it could win before it raises its term. */
export function becomePreCandidate<C, S>(node: RaftNode<C, S>): RaftNode<C, S> {
  assert(node.role !== 'leader', 'a leader does not stand for election');
  return { ...resetVolatile(node), role: 'precandidate', leader: null, votesGranted: 1 << node.id };
}

/** Candidate of the next term, voting for itself (§5.2). */
export function becomeCandidate<C, S>(node: RaftNode<C, S>): RaftNode<C, S> {
  assert(node.role !== 'leader', 'a leader does not stand for election');
  return {
    ...resetVolatile(node),
    role: 'candidate',
    currentTerm: node.currentTerm + 1,
    votedFor: node.id,
    leader: null,
    votesGranted: 1 << node.id,
  };
}

/**
 * Leader: every follower's progress probing just after the leader's log, match 0 (§5.3), and
 * a no-op entry of the new term (dissertation §6.4): it commits the earlier terms' entries
 * with it, and until it commits the leader serves no read. Its own match is 0 too: it counts
 * itself once its storage reports the no-op durable (handleLogDurable, §10.2.1).
 */
export function becomeLeader<C, S>(node: RaftNode<C, S>): RaftNode<C, S> {
  assert(node.role === 'candidate', 'only a candidate becomes leader');
  const next = lastLogIndex(node) + 1;
  const log = appendedLogEntries(node.log, [{ term: node.currentTerm, command: null }]);
  return {
    ...resetVolatile(node),
    role: 'leader',
    leader: node.id,
    log,
    progress: Array.from({ length: node.clusterSize }, () => initialProgress(next - 1)),
  };
}
