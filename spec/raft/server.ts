/**
 * One Raft server as an actor (DESIGN §2): the initial state, the role changes (each in one
 * place, as etcd's becomeFollower / becomeCandidate / becomeLeader), restart from persisted
 * state, and `receive`, which applies the term rule of §5.1 once and dispatches on the
 * message type to the handlers of election.ts, replication.ts and compaction.ts.
 */
import { match } from 'ts-pattern';
import { assert } from '../assert.js';
import { handleInstallSnapshotRequest, handleInstallSnapshotResponse } from './compaction.js';
import { handleRequestVoteRequest, handleRequestVoteResponse } from './election.js';
import { lastLogIndex } from './log.js';
import { handleAppendEntriesRequest, handleAppendEntriesResponse } from './replication.js';
import type { Effect, HardState, Message, RaftOptions, RaftServer, Step } from './types.js';

export const emptySnapshot = { lastIncludedIndex: 0, lastIncludedTerm: 0, values: [] } as const;

export function initialServer(id: number, clusterSize: number): RaftServer {
  assert(id >= 0 && id < clusterSize, `server ${id} outside a cluster of ${clusterSize}`);
  return {
    id,
    clusterSize,
    currentTerm: 0,
    votedFor: null,
    log: [],
    snapshot: emptySnapshot,
    role: 'follower',
    commitIndex: 0,
    votesGranted: 0,
    nextIndex: Array<number>(clusterSize).fill(1),
    matchIndex: Array<number>(clusterSize).fill(0),
  };
}

/** The state a `persist` effect writes; with forget-vote-on-restart the vote is left out. */
export function hardState(server: RaftServer, options: RaftOptions): HardState {
  return {
    currentTerm: server.currentTerm,
    votedFor: options.forgetVoteOnRestart ? null : server.votedFor,
    log: server.log,
    snapshot: server.snapshot,
  };
}

export function persistEffect(server: RaftServer, options: RaftOptions): Effect {
  return { type: 'persist', state: hardState(server, options) };
}

export function quorum(clusterSize: number): number {
  return Math.floor(clusterSize / 2) + 1;
}

export function countVotes(mask: number): number {
  let count = 0;
  for (let bits = mask; bits !== 0; bits &= bits - 1) count++;
  return count;
}

/** Follower of `term`: forgets the vote when the term is new. */
export function becomeFollower(server: RaftServer, term: number): RaftServer {
  assert(term >= server.currentTerm, 'a server never goes back in term');
  const newTerm = term > server.currentTerm;
  return {
    ...server,
    role: 'follower',
    currentTerm: term,
    votedFor: newTerm ? null : server.votedFor,
    votesGranted: 0,
  };
}

/** Candidate of the next term, voting for itself (§5.2). */
export function becomeCandidate(server: RaftServer): RaftServer {
  assert(server.role !== 'leader', 'a leader does not stand for election');
  return {
    ...server,
    role: 'candidate',
    currentTerm: server.currentTerm + 1,
    votedFor: server.id,
    votesGranted: 1 << server.id,
  };
}

/** Leader: every follower's nextIndex just after the leader's log, matchIndex 0 (§5.3). */
export function becomeLeaderState(server: RaftServer): RaftServer {
  assert(server.role === 'candidate', 'only a candidate becomes leader');
  const next = lastLogIndex(server) + 1;
  return {
    ...server,
    role: 'leader',
    nextIndex: Array<number>(server.clusterSize).fill(next),
    matchIndex: server.matchIndex.map((_, peer) => (peer === server.id ? next - 1 : 0)),
  };
}

/**
 * Restart after a crash from what was persisted: role, commitIndex, votes and the leader's
 * indexes are volatile and lost; the state machine restarts from the snapshot.
 */
export function restart(id: number, clusterSize: number, persisted: HardState): Step {
  const server: RaftServer = {
    ...initialServer(id, clusterSize),
    currentTerm: persisted.currentTerm,
    votedFor: persisted.votedFor,
    log: persisted.log,
    snapshot: persisted.snapshot,
    commitIndex: persisted.snapshot.lastIncludedIndex,
  };
  const effects: Effect[] = [{ type: 'setTimer', timer: 'election' }];
  if (persisted.snapshot.lastIncludedIndex > 0) {
    effects.unshift({ type: 'restoreSnapshot', snapshot: persisted.snapshot });
  }
  return { server, effects };
}

/**
 * A message from `from` arrives. A newer term makes the server a follower of it first, and
 * that is persisted (§5.1); then the handler of the message's type runs.
 */
export function receive(
  server: RaftServer,
  from: number,
  message: Message,
  options: RaftOptions = {},
): Step {
  assert(from >= 0 && from < server.clusterSize, `message from unknown server ${from}`);
  let current = server;
  const effects: Effect[] = [];
  if (message.term > server.currentTerm) {
    current = becomeFollower(server, message.term);
    effects.push(persistEffect(current, options));
  }
  const step = match(message)
    .with({ type: 'RequestVoteRequest' }, (m) =>
      handleRequestVoteRequest(current, from, m, options),
    )
    .with({ type: 'RequestVoteResponse' }, (m) => handleRequestVoteResponse(current, from, m))
    .with({ type: 'AppendEntriesRequest' }, (m) =>
      handleAppendEntriesRequest(current, from, m, options),
    )
    .with({ type: 'AppendEntriesResponse' }, (m) => handleAppendEntriesResponse(current, from, m))
    .with({ type: 'InstallSnapshotRequest' }, (m) =>
      handleInstallSnapshotRequest(current, from, m, options),
    )
    .with({ type: 'InstallSnapshotResponse' }, (m) =>
      handleInstallSnapshotResponse(current, from, m),
    )
    .exhaustive();
  return { server: step.server, effects: mergePersists([...effects, ...step.effects]) };
}

/** Keeps only the last persist of a step, placed where the first one was (before sends). */
function mergePersists(effects: readonly Effect[]): Effect[] {
  const persists = effects.filter((effect) => effect.type === 'persist');
  if (persists.length <= 1) return [...effects];
  const first = effects.findIndex((effect) => effect.type === 'persist');
  const rest: Effect[] = effects.filter((effect) => effect.type !== 'persist');
  rest.splice(first, 0, persists[persists.length - 1]!);
  return rest;
}
