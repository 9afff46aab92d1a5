/**
 * Leader election (Raft paper §5.2, §5.4.1), with PreVote and the leader lease of CheckQuorum
 * (dissertation §9.6): a server first asks whether it could win, and raises its term only if a
 * quorum would vote for it; a server that hears from a live leader ignores vote requests. So a
 * server cut off from the others never raises its term, and when it heals it deposes nobody.
 * Each function is one handler of step.ts; the term rule of §5.1 has run before it.
 */
import { lastLogIndex, lastLogTerm, isUpToDate } from './log.js';
import {
  becomeCandidate,
  becomeFollower,
  becomeLeader,
  becomePreCandidate,
  countVotes,
  quorum,
} from './node.js';
import type { Effect, Message, RaftNode, RaftOptions, Step } from './types.js';

type VoteRequest<C, S> = Extract<
  Message<C, S>,
  { type: 'RequestVoteRequest' | 'PreVoteRequest' }
>;
type VoteResponse<C, S> = Extract<
  Message<C, S>,
  { type: 'RequestVoteResponse' | 'PreVoteResponse' }
>;

const sendSoon = { type: 'sendSoon' } as const;
const resetElectionTimer = { type: 'setTimer', timer: 'election' } as const;

/** A candidate that holds a quorum of votes leads; one that needs nobody else wins at once. */
function maybeWin<C, S>(node: RaftNode<C, S>): RaftNode<C, S> {
  if (countVotes(node.votesGranted) < quorum(node.clusterSize)) return node;
  if (node.role === 'precandidate') return maybeWin(becomeCandidate(node));
  return node.role === 'candidate' ? becomeLeader(node) : node;
}

/**
 * The election timer fires. A follower or candidate campaigns: as a pre-candidate with
 * PreVote, else as a candidate of the next term (bug prevote-raises-term: the pre-candidate
 * raises its term too). A leader with CheckQuorum steps down unless a quorum was heard from
 * since the previous timeout (§9.6; bug leader-never-steps-down: since it was elected);
 * without it a leader runs no election timer (timers.ts) and ignores the input. The timer
 * fired once: whoever still runs it sets it again.
 */
export function handleElectionTimeout<C, S>(
  node: RaftNode<C, S>,
  options: RaftOptions,
): Step<C, S> {
  if (node.role === 'leader') {
    if (options.checkQuorum !== true) return { node, effects: [] };
    const heard = countVotes(node.recentlyActive | (1 << node.id));
    if (heard >= quorum(node.clusterSize)) {
      // A new period of listening starts (unchanged when it already had), timed afresh; the
      // bug leader-never-steps-down keeps the old period, so a quorum heard once counts for ever.
      const keep = node.recentlyActive === 0 || options.bugs?.['leader-never-steps-down'] === true;
      const next = keep ? node : { ...node, recentlyActive: 0 };
      return { node: next, effects: [resetElectionTimer] };
    }
    return { node: becomeFollower(node, node.currentTerm, null), effects: [resetElectionTimer] };
  }
  let campaigner: RaftNode<C, S>;
  if (options.preVote === true) {
    campaigner = becomePreCandidate(node);
    if (options.bugs?.['prevote-raises-term'] === true) {
      campaigner = { ...campaigner, currentTerm: node.currentTerm + 1, votedFor: null };
    }
  } else {
    campaigner = becomeCandidate(node);
  }
  return { node: maybeWin(campaigner), effects: [resetElectionTimer, sendSoon] };
}

/** A (pre)candidate asks `peer` for its vote, unless the peer granted it already. */
export function voteRequestTo<C, S>(node: RaftNode<C, S>, peer: number): Effect<C, S> | null {
  if ((node.votesGranted & (1 << peer)) !== 0) return null;
  const preVote = node.role === 'precandidate';
  const message: Message<C, S> = {
    type: preVote ? 'PreVoteRequest' : 'RequestVoteRequest',
    term: preVote ? node.currentTerm + 1 : node.currentTerm,
    lastLogIndex: lastLogIndex(node),
    lastLogTerm: lastLogTerm(node),
  };
  return { type: 'send', to: peer, message };
}

/**
 * The leader lease (§9.6, CheckQuorum): a node that knows a live leader of its term ignores a
 * vote request of a higher term, neither raising its term nor answering. Consulted by step.ts
 * before the term rule; the bug vote-during-lease lets the request through.
 */
export function ignoresVoteInLease<C, S>(
  node: RaftNode<C, S>,
  message: Message<C, S>,
  options: RaftOptions,
): boolean {
  if (message.type !== 'RequestVoteRequest' && message.type !== 'PreVoteRequest') return false;
  if (options.checkQuorum !== true || options.bugs?.['vote-during-lease'] === true) return false;
  return message.term > node.currentTerm && node.leader !== null;
}

/**
 * Whether to grant: a vote of the current term when the vote is free (or already this
 * candidate's), a pre-vote for a later term; either only for a log at least as up-to-date
 * (§5.4.1; the bug vote-ignores-log skips that check).
 */
function voteGranted<C, S>(
  node: RaftNode<C, S>,
  from: number,
  request: VoteRequest<C, S>,
  options: RaftOptions,
): boolean {
  const logOk =
    options.bugs?.['vote-ignores-log'] === true ||
    isUpToDate(node, request.lastLogIndex, request.lastLogTerm);
  if (request.type === 'PreVoteRequest') return request.term > node.currentTerm && logOk;
  const free = node.votedFor === null || node.votedFor === from;
  return request.term === node.currentTerm && node.role === 'follower' && free && logOk;
}

/** A vote or pre-vote request: the reply, with the vote recorded first when granted. */
export function handleVoteRequest<C, S>(
  node: RaftNode<C, S>,
  from: number,
  request: VoteRequest<C, S>,
  options: RaftOptions,
): Step<C, S> {
  const grant = voteGranted(node, from, request, options);
  const preVote = request.type === 'PreVoteRequest';
  const voted = grant && !preVote ? { ...node, votedFor: from } : node;
  const effects: Effect<C, S>[] = [];
  if (grant && !preVote) effects.push(resetElectionTimer);
  effects.push({
    type: 'send',
    to: from,
    message: {
      type: preVote ? 'PreVoteResponse' : 'RequestVoteResponse',
      term: grant && preVote ? request.term : node.currentTerm,
      voteGranted: grant,
    },
  });
  return { node: voted, effects };
}

/** A (pre)candidate tallies a vote for its election; on a quorum it moves on (§5.2, §9.6). */
export function handleVoteResponse<C, S>(
  node: RaftNode<C, S>,
  from: number,
  response: VoteResponse<C, S>,
  options: RaftOptions = {},
): Step<C, S> {
  const preVote = response.type === 'PreVoteResponse';
  const expectedRole = preVote ? 'precandidate' : 'candidate';
  // A pre-vote grant carries the term it was asked for (bug prevote-response-term: the
  // pre-candidate expects its own term, so it never counts a grant).
  const wrongTerm = options.bugs?.['prevote-response-term'] === true;
  const expectedTerm = preVote && !wrongTerm ? node.currentTerm + 1 : node.currentTerm;
  // count-stale-vote: a vote of an older term passes for one of this term.
  const stale = response.term < expectedTerm && options.bugs?.['count-stale-vote'] === true;
  const current = response.term === expectedTerm || stale;
  if (node.role !== expectedRole || !current || !response.voteGranted) {
    return { node, effects: [] };
  }
  const tallied = maybeWin({ ...node, votesGranted: node.votesGranted | (1 << from) });
  return { node: tallied, effects: tallied.role !== node.role ? [sendSoon] : [] };
}

