/**
 * ReadIndex (dissertation §6.4): a linearizable read without writing the log. The leader
 * numbers the read (readSequence), and every AppendEntries it sends from then on carries that
 * number; a reply of its term echoing it shows the replier still followed this leader after
 * the read arrived. Once a quorum (the leader included) has, and the leader has committed an
 * entry of its own term (so its commit index covers every earlier leader's), the read may be
 * served at the leader's commit index: `readReady(requestId, index)`, served by the
 * application once it has applied `index`.
 */
import { termAt } from './log.js';
import { countVotes, quorum } from './node.js';
import type { Effect, Message, RaftNode, RaftOptions, Step } from './types.js';

type AppendEntriesResponse<C, S> = Extract<Message<C, S>, { type: 'AppendEntriesResponse' }>;

/** A read request arrives: a leader queues it; anyone else refuses it. */
export function handleReadIndex<C, S>(node: RaftNode<C, S>, requestId: number): Step<C, S> {
  if (node.role !== 'leader') return { node, effects: [{ type: 'readRefused', requestId }] };
  const sequence = node.readSequence + 1;
  const read = { requestId, sequence, acknowledged: 1 << node.id };
  return {
    node: { ...node, readSequence: sequence, pendingReads: [...node.pendingReads, read] },
    effects: [{ type: 'sendSoon' }],
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
  return { node: { ...node, pendingReads: waiting }, effects };
}
