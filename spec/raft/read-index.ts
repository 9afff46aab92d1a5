/**
 * ReadIndex (dissertation §6.4): a linearizable read without writing the log. The leader
 * numbers the read (readSequence), and every AppendEntries it sends from then on carries that
 * number; a reply of its term echoing it shows the replier still followed this leader after
 * the read arrived. Once a quorum (the leader included) has, and the leader has committed an
 * entry of its own term (so its commit index covers every earlier leader's), the read may be
 * served at the leader's commit index: `readReady(requestId, index)`, served by the
 * application once it has applied `index`. With readRoundToQuorum, the round a read starts
 * asks only as many followers as make a quorum with the leader (readRoundPeers): a message to every follower
 * costs each a wake-up and the leader a write and a read per reply, of which one is enough
 * in a cluster of three. Which followers are asked changes nothing the invariants judge
 * (the models send heartbeats to whomever they choose): reads are served on a quorum's
 * replies alone.
 */
import { assert } from '../assert.js';
import { termAt } from './log.js';
import { countVotes, quorum } from './node.js';
import type { Effect, Message, RaftNode, RaftOptions, Step } from './types.js';

type AppendEntriesResponse<C, S> = Extract<Message<C, S>, { type: 'AppendEntriesResponse' }>;

/**
 * The followers a confirmation round goes to, as a mask: the fewest that make a quorum with
 * the leader, lowest ids first, among those heard from in this CheckQuorum period
 * (recentlyActive); null, every follower, when too few were heard from (a new period, or
 * CheckQuorum off) or the option readRoundToQuorum is off. Only who is asked first: every heartbeat carries the read's number to
 * every follower, so a round that asked a follower that went silent is answered by the next.
 */
export function readRoundPeers<C, S>(node: RaftNode<C, S>, options: RaftOptions): number | null {
  assert(node.role === 'leader', 'only a leader confirms reads');
  if (options.readRoundToQuorum !== true) return null;
  const needed = quorum(node.clusterSize) - 1;
  const heard = node.recentlyActive & ~(1 << node.id);
  if (countVotes(heard) < needed) return null;
  let peers = 0;
  for (let peer = 0; countVotes(peers) < needed; peer++) {
    if ((heard & (1 << peer)) !== 0) peers |= 1 << peer;
  }
  assert(countVotes(peers) === needed && (peers & ~heard) === 0, 'a round of the wrong peers');
  // In a cluster of one or two the quorum is every follower.
  return needed === node.clusterSize - 1 ? null : peers;
}

/**
 * A read request arrives: a leader queues it and asks for a round to readRoundPeers soon
 * (reads of one turn share it: the shell sends one heartbeat for them, carrying the latest
 * number); anyone else refuses it.
 */
export function handleReadIndex<C, S>(
  node: RaftNode<C, S>,
  requestId: number,
  options: RaftOptions,
): Step<C, S> {
  if (node.role !== 'leader') return { node, effects: [{ type: 'readRefused', requestId }] };
  const sequence = node.readSequence + 1;
  const read = { requestId, sequence, acknowledged: 1 << node.id };
  const peers = readRoundPeers(node, options);
  return {
    node: { ...node, readSequence: sequence, pendingReads: [...node.pendingReads, read] },
    effects: [peers === null ? { type: 'sendSoon' } : { type: 'sendSoon', peers }],
  };
}

/** A follower's reply of this term confirms every read numbered up to what it echoes. */
export function acknowledgeReads<C, S>(
  node: RaftNode<C, S>,
  from: number,
  response: AppendEntriesResponse<C, S>,
): RaftNode<C, S> {
  if (node.pendingReads.every((read) => read.sequence > response.readSequence)) return node;
  const pendingReads = node.pendingReads.map((read) =>
    read.sequence > response.readSequence
      ? read
      : { ...read, acknowledged: read.acknowledged | (1 << from) },
  );
  return { ...node, pendingReads };
}

/**
 * Serves the reads a quorum confirmed, once the leader has committed an entry of its term.
 * The bug read-without-quorum serves them without the confirmation: a deposed leader that does
 * not know it yet answers with a stale index.
 */
export function releaseReads<C, S>(node: RaftNode<C, S>, options: RaftOptions): Step<C, S> {
  if (node.role !== 'leader' || node.pendingReads.length === 0) return { node, effects: [] };
  if (termAt(node, node.commitIndex) !== node.currentTerm) return { node, effects: [] };
  const needed = quorum(node.clusterSize);
  const skipQuorum = options.bugs?.['read-without-quorum'] === true;
  const effects: Effect<C, S>[] = [];
  const waiting = node.pendingReads.filter((read) => {
    if (!skipQuorum && countVotes(read.acknowledged) < needed) return true;
    effects.push({ type: 'readReady', requestId: read.requestId, index: node.commitIndex });
    return false;
  });
  if (effects.length === 0) return { node, effects };
  // The reads that came while this round flew go in the next.
  return { node: { ...node, pendingReads: waiting }, effects };
}
