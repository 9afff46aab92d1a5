/**
 * raft.tla's Receive(m): UpdateTerm when m carries a newer term, else the handler of m's type
 * (HandleRequestVoteRequest / Response, HandleAppendEntriesRequest / Response) or
 * DropStaleResponse, over the packed state of tla-state.ts.
 */
import type { TlaRaft } from './tla-raft.js';
import {
  absent,
  appendCommitIndex,
  appendEntriesRequest,
  appendEntriesResponse,
  appendEntry,
  appendEntryOf,
  appendPrevLogIndex,
  appendPrevLogTerm,
  candidate,
  commitIndexOffset,
  dropLastEntry,
  entryTerm,
  follower,
  lastTerm,
  logEntry,
  logLength,
  logOffset,
  matchIndexOffset,
  messageDestination,
  messageLow,
  messagePayload,
  messageSource,
  messageTerm,
  messageType,
  nextIndexOffset,
  nil,
  requestLastLogIndex,
  requestLastLogTerm,
  requestVoteRequest,
  requestVoteResponse,
  roleOffset,
  termOffset,
  votedForOffset,
  voterLogOffset,
  votesGrantedOffset,
  votesRespondedOffset,
  withMessage,
  withoutMessage,
  type TlaState,
} from './tla-state.js';

/** Receive(m): UpdateTerm, or the handler for m's type, or DropStaleResponse. */
export function receive(
  raft: TlaRaft,
  state: TlaState,
  low: number,
  high: number,
): TlaState | null {
  const i = messageDestination(low);
  const j = messageSource(low);
  const messageTermValue = messageTerm(low);
  const term = raft.field(state, i, termOffset);
  if (messageTermValue > term) return updateTerm(raft, state, i, messageTermValue);
  switch (messageType(low)) {
    case requestVoteRequest:
      return handleRequestVoteRequest(raft, state, i, j, low);
    case requestVoteResponse:
      if (messageTermValue < term) return dropStaleResponse(raft, state, low, high);
      return handleRequestVoteResponse(raft, state, i, j, low, high);
    case appendEntriesRequest:
      return handleAppendEntriesRequest(raft, state, i, j, low, high);
    default:
      if (messageTermValue < term) return dropStaleResponse(raft, state, low, high);
      return handleAppendEntriesResponse(raft, state, i, j, low);
  }
}

/** Any message with a newer term makes the recipient a follower of that term first. */
function updateTerm(raft: TlaRaft, state: TlaState, i: number, term: number): TlaState {
  const servers = state.servers.slice();
  const base = i * raft.width;
  servers[base + termOffset] = term;
  servers[base + roleOffset] = follower;
  servers[base + votedForOffset] = nil;
  return raft.successor(state, servers, state.messages, state.elections);
}

function dropStaleResponse(raft: TlaRaft, state: TlaState, low: number, high: number): TlaState {
  return raft.successor(
    state,
    state.servers,
    withoutMessage(state.messages, low, high),
    state.elections,
  );
}

function handleRequestVoteRequest(
  raft: TlaRaft,
  state: TlaState,
  i: number,
  j: number,
  low: number,
): TlaState {
  const base = i * raft.width;
  const log = state.servers[base + logOffset]!;
  const payload = messagePayload(low);
  const candidateLastTerm = requestLastLogTerm(payload);
  const ownLastTerm = lastTerm(log);
  const logOk =
    candidateLastTerm > ownLastTerm ||
    (candidateLastTerm === ownLastTerm && requestLastLogIndex(payload) >= logLength(log));
  const term = state.servers[base + termOffset]!;
  const votedFor = state.servers[base + votedForOffset]!;
  const grant = messageTerm(low) === term && logOk && (votedFor === nil || votedFor === j);
  let servers = state.servers;
  if (grant && votedFor !== j) {
    const voted = servers.slice();
    voted[base + votedForOffset] = j;
    servers = voted;
  }
  const response = messageLow(requestVoteResponse, term, i, j, grant ? 1 : 0);
  const messages = withoutMessage(withMessage(state.messages, response, log), low, 0);
  return raft.successor(state, servers, messages, state.elections);
}

function handleRequestVoteResponse(
  raft: TlaRaft,
  state: TlaState,
  i: number,
  j: number,
  low: number,
  high: number,
): TlaState {
  const count = raft.bounds.servers;
  const servers = state.servers.slice();
  const base = i * raft.width;
  servers[base + votesRespondedOffset]! |= 1 << j;
  if (messagePayload(low) === 1) {
    servers[base + votesGrantedOffset]! |= 1 << j;
    // voterLog[i] @@ (j :> m.mlog): @@ keeps the value already there.
    if (servers[base + voterLogOffset(count) + j] === absent) {
      servers[base + voterLogOffset(count) + j] = high;
    }
  }
  return raft.successor(state, servers, withoutMessage(state.messages, low, high), state.elections);
}

function handleAppendEntriesRequest(
  raft: TlaRaft,
  state: TlaState,
  i: number,
  j: number,
  low: number,
  high: number,
): TlaState | null {
  const base = i * raft.width;
  const term = state.servers[base + termOffset]!;
  const role = state.servers[base + roleOffset]!;
  const log = state.servers[base + logOffset]!;
  const length = logLength(log);
  const payload = messagePayload(low);
  const prevLogIndex = appendPrevLogIndex(payload);
  const logOk =
    prevLogIndex === 0 ||
    (prevLogIndex <= length &&
      appendPrevLogTerm(payload) === entryTerm(logEntry(log, prevLogIndex)));
  const requestTerm = messageTerm(low);
  if (requestTerm < term || (role === follower && !logOk)) {
    const response = messageLow(appendEntriesResponse, term, i, j, 0);
    const messages = withoutMessage(withMessage(state.messages, response, 0), low, high);
    return raft.successor(state, state.servers, messages, state.elections);
  }
  if (role === candidate) {
    const servers = state.servers.slice();
    servers[base + roleOffset] = follower;
    return raft.successor(state, servers, state.messages, state.elections);
  }
  if (role !== follower) return null;
  const index = prevLogIndex + 1;
  const entry = appendEntryOf(payload);
  if (entry === 0 || (length >= index && entryTerm(logEntry(log, index)) === entryTerm(entry))) {
    const servers = state.servers.slice();
    servers[base + commitIndexOffset] = appendCommitIndex(high);
    const matchIndex = prevLogIndex + (entry === 0 ? 0 : 1);
    const response = messageLow(appendEntriesResponse, term, i, j, 1 | (matchIndex << 1));
    const messages = withoutMessage(withMessage(state.messages, response, 0), low, high);
    return raft.successor(state, servers, messages, state.elections);
  }
  if (length >= index) {
    // Conflict: remove one entry (the last one, exactly as raft.tla does).
    const servers = state.servers.slice();
    servers[base + logOffset] = dropLastEntry(log);
    return raft.successor(state, servers, state.messages, state.elections);
  }
  if (length === prevLogIndex) {
    const servers = state.servers.slice();
    servers[base + logOffset] = appendEntry(log, entry);
    return raft.successor(state, servers, state.messages, state.elections);
  }
  return null;
}

function handleAppendEntriesResponse(
  raft: TlaRaft,
  state: TlaState,
  i: number,
  j: number,
  low: number,
): TlaState {
  const count = raft.bounds.servers;
  const servers = state.servers.slice();
  const base = i * raft.width;
  const payload = messagePayload(low);
  if ((payload & 1) === 1) {
    const matchIndex = payload >>> 1;
    servers[base + nextIndexOffset + j] = matchIndex + 1;
    servers[base + matchIndexOffset(count) + j] = matchIndex;
  } else {
    servers[base + nextIndexOffset + j] = Math.max(servers[base + nextIndexOffset + j]! - 1, 1);
  }
  return raft.successor(state, servers, withoutMessage(state.messages, low, 0), state.elections);
}
