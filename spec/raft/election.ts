/**
 * Leader election (Raft paper §5.2, §5.4.1; raft.tla's Timeout, RequestVote, BecomeLeader,
 * HandleRequestVoteRequest, HandleRequestVoteResponse). Every function is one atomic step of
 * one server: guards first (null: not enabled), then the new state and its effects.
 */
import { assert } from '../assert.js';
import { isUpToDate, lastLogIndex, lastLogTerm } from './log.js';
import { becomeCandidate, becomeLeaderState, countVotes, persistEffect, quorum } from './server.js';
import type { Effect, Message, RaftOptions, RaftServer, Step } from './types.js';

type RequestVoteRequest = Extract<Message, { type: 'RequestVoteRequest' }>;
type RequestVoteResponse = Extract<Message, { type: 'RequestVoteResponse' }>;

/** The election timer fires: a follower or candidate starts an election in a new term. */
export function timeout(server: RaftServer, options: RaftOptions = {}): Step | null {
  if (server.role === 'leader') return null;
  const candidate = becomeCandidate(server);
  return {
    server: candidate,
    effects: [persistEffect(candidate, options), { type: 'setTimer', timer: 'election' }],
  };
}

/** Candidate i asks `peer` for its vote. Which peer, and when, is the caller's decision. */
export function requestVote(server: RaftServer, peer: number): Step | null {
  if (server.role !== 'candidate' || peer === server.id) return null;
  if ((server.votesGranted & (1 << peer)) !== 0) return null;
  assert(peer >= 0 && peer < server.clusterSize, `no server ${peer}`);
  const message: Message = {
    type: 'RequestVoteRequest',
    term: server.currentTerm,
    lastLogIndex: lastLogIndex(server),
    lastLogTerm: lastLogTerm(server),
  };
  return { server, effects: [{ type: 'send', to: peer, message }] };
}

/** A candidate holding a quorum of votes becomes leader (§5.2). */
export function becomeLeader(server: RaftServer): Step | null {
  if (server.role !== 'candidate') return null;
  if (countVotes(server.votesGranted) < quorum(server.clusterSize)) return null;
  const leader = becomeLeaderState(server);
  return { server: leader, effects: [{ type: 'setTimer', timer: 'heartbeat' }] };
}

/**
 * Grant the vote when the request is of the current term, the vote is free (or already this
 * candidate's) and the candidate's log is at least as up-to-date (§5.4.1). The vote is
 * persisted before the reply is sent.
 */
export function handleRequestVoteRequest(
  server: RaftServer,
  from: number,
  request: RequestVoteRequest,
  options: RaftOptions = {},
): Step {
  const logOk =
    options.voteIgnoresLog === true ||
    isUpToDate(server, request.lastLogIndex, request.lastLogTerm);
  const grant =
    request.term === server.currentTerm &&
    (server.votedFor === null || server.votedFor === from) &&
    logOk;
  assert(!grant || server.role === 'follower', 'a candidate or leader has voted for itself');
  const voted = grant ? { ...server, votedFor: from } : server;
  const effects: Effect[] = [];
  if (grant && server.votedFor !== from) effects.push(persistEffect(voted, options));
  if (grant) effects.push({ type: 'setTimer', timer: 'election' });
  effects.push({
    type: 'send',
    to: from,
    message: { type: 'RequestVoteResponse', term: server.currentTerm, voteGranted: grant },
  });
  return { server: voted, effects };
}

/** A candidate tallies a vote of its current term; anything else is stale and ignored. */
export function handleRequestVoteResponse(
  server: RaftServer,
  from: number,
  response: RequestVoteResponse,
): Step {
  if (
    response.term !== server.currentTerm ||
    server.role !== 'candidate' ||
    !response.voteGranted
  ) {
    return { server, effects: [] };
  }
  return { server: { ...server, votesGranted: server.votesGranted | (1 << from) }, effects: [] };
}
