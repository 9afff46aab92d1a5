/**
 * The one entry point of a Raft node (DESIGN §2, etcd's raft.Step and RawNode.Ready): every
 * input goes through `step`, which returns the new node and the effects the runtime performs.
 * A message first passes the leader lease and the term rule of §5.1 (once, here), then the
 * handler of its type; every step then lets a leader commit what a quorum holds and serve the
 * reads a quorum confirmed, and computes what the disk must save (persistence.ts).
 */
import { assert } from '../assert.js';
import {
  handleInstallSnapshotRequest,
  handleInstallSnapshotResponse,
  handleSnapshotTaken,
} from './compaction.js';
import {
  handleElectionTimeout,
  handleVoteRequest,
  handleVoteResponse,
  ignoresVoteInLease,
  voteRequestTo,
} from './election.js';
import { becomeFollower } from './node.js';
import { restartNode, saveEffects } from './persistence.js';
import { handleReadIndex, releaseReads } from './read-index.js';
import {
  handleAppendEntriesRequest,
  handleAppendEntriesResponse,
  handleLogDurable,
  handlePropose,
  maybeCommit,
  replicateTo,
} from './replication.js';
import { withProgress } from './progress.js';
import { roleTimerEffects } from './timers.js';
import type { Effect, Input, Message, RaftNode, RaftOptions, Step } from './types.js';

/** Whether a message of a newer term makes the receiver a follower of that term (§5.1). */
function adoptsTerm(message: Message<unknown, unknown>): boolean {
  // A pre-vote is about a term nobody holds yet (§9.6): asking or granting one changes none.
  if (message.type === 'PreVoteRequest') return false;
  return !(message.type === 'PreVoteResponse' && message.voteGranted);
}

function handleMessage<C, S>(
  node: RaftNode<C, S>,
  from: number,
  message: Message<C, S>,
  options: RaftOptions,
): Step<C, S> {
  assert(from >= 0 && from < node.clusterSize, `message from unknown server ${from}`);
  assert(from !== node.id, 'a node sends nothing to itself');
  if (ignoresVoteInLease(node, message, options)) return { node, effects: [] };
  let current = node;
  if (message.term > node.currentTerm && adoptsTerm(message)) {
    const fromLeader =
      message.type === 'AppendEntriesRequest' || message.type === 'InstallSnapshotRequest';
    current = becomeFollower(node, message.term, fromLeader ? from : null);
  }
  if (options.checkQuorum === true && current.role === 'leader') {
    if (message.term === current.currentTerm) {
      current = { ...current, recentlyActive: current.recentlyActive | (1 << from) };
    }
  }
  switch (message.type) {
    case 'RequestVoteRequest':
    case 'PreVoteRequest':
      return handleVoteRequest(current, from, message, options);
    case 'RequestVoteResponse':
    case 'PreVoteResponse':
      return handleVoteResponse(current, from, message, options);
    case 'AppendEntriesRequest':
      return handleAppendEntriesRequest(current, from, message, options);
    case 'AppendEntriesResponse':
      return handleAppendEntriesResponse(current, from, message, options);
    case 'InstallSnapshotRequest':
      return handleInstallSnapshotRequest(current, from, message, options);
    case 'InstallSnapshotResponse':
      return handleInstallSnapshotResponse(current, from, message, options);
  }
}

/** Contact `peer`, or every peer: a leader replicates, a (pre)candidate asks for votes. */
function handleHeartbeat<C, S>(
  node: RaftNode<C, S>,
  peer: number | undefined,
  options: RaftOptions,
): Step<C, S> {
  assert(peer === undefined || (peer >= 0 && peer < node.clusterSize), `no server ${peer}`);
  assert(peer !== node.id, 'a node sends nothing to itself');
  const effects: Effect<C, S>[] = [];
  let current = node;
  for (let other = 0; other < node.clusterSize; other++) {
    if (other === node.id || (peer !== undefined && other !== peer)) continue;
    if (node.role === 'leader') {
      const sent = replicateTo(current, other, options);
      if (sent.progress !== current.progress[other]) {
        current = withProgress(current, other, sent.progress);
      }
      effects.push(sent.effect);
    } else if (node.role !== 'follower') {
      const effect = voteRequestTo(node, other);
      if (effect !== null) effects.push(effect);
    }
  }
  return { node: current, effects };
}

function dispatch<C, S>(
  node: RaftNode<C, S>,
  input: Exclude<Input<C, S>, { type: 'restart' }>,
  options: RaftOptions,
): Step<C, S> {
  switch (input.type) {
    case 'message':
      return handleMessage(node, input.from, input.message, options);
    case 'electionTimeout':
      return handleElectionTimeout(node, options);
    case 'heartbeat':
      return handleHeartbeat(node, input.peer, options);
    case 'propose':
      return handlePropose(node, input.commands);
    case 'snapshot':
      return handleSnapshotTaken(node, input.index, input.data);
    case 'readIndex':
      return handleReadIndex(node, input.requestId, options);
    case 'logDurable':
      return handleLogDurable(node, input.index, input.term);
  }
}

/**
 * One step of a node: the input's handler, then the leader's commit (§5.3, §5.4.2) and
 * ReadIndex release (§6.4), then the saves, placed first, each with its sync duty (see
 * SyncDuty and Effect for the ordering duty). A leader that stopped leading says so first
 * after the saves and refuses its pending reads last; a step that changed the role ends with
 * the timers of the new role (timers.ts).
 */
export function step<C, S>(
  node: RaftNode<C, S>,
  input: Input<C, S>,
  options: RaftOptions = {},
): Step<C, S> {
  if (input.type === 'restart') return restartNode(node, input.persisted, options);
  const handled = dispatch(node, input, options);
  const committed = maybeCommit(handled.node, options);
  const released = releaseReads(committed.node, options);
  const after = released.node;
  // A leader never leads a later term in the same step: it would have to stand again first.
  assert(node.role !== 'leader' || after.role !== 'leader' ||
    after.currentTerm === node.currentTerm, 'a leader changed term without stepping down');
  const lost: Effect<C, S>[] = [];
  const refused: Effect<C, S>[] = [];
  if (node.role === 'leader' && after.role !== 'leader') {
    lost.push({ type: 'leadershipLost', term: node.currentTerm });
    for (const read of node.pendingReads) {
      refused.push({ type: 'readRefused', requestId: read.requestId });
    }
  }
  const effects = [
    ...saveEffects(node, after, options),
    ...lost,
    ...handled.effects,
    ...committed.effects,
    ...released.effects,
    ...refused,
  ];
  effects.push(...roleTimerEffects(node, after, effects, options));
  return { node: after, effects };
}
