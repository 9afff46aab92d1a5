/**
 * The raft.tla actions a server takes by itself (raft.tla's Restart, Timeout, RequestVote,
 * AppendEntries, BecomeLeader, ClientRequest, AdvanceCommitIndex), over the packed state of
 * tla-state.ts: each reads its guards first and returns null when it is not enabled.
 */
import { assert } from '../../spec/assert.js';
import type { TlaRaft } from './tla-raft.js';
import {
  absent,
  appendEntriesRequest,
  appendEntry,
  candidate,
  commitIndexOffset,
  entryOf,
  entryTerm,
  follower,
  lastTerm,
  leader,
  logEntry,
  logLength,
  logOffset,
  matchIndexOffset,
  messageLow,
  nextIndexOffset,
  nil,
  requestVoteRequest,
  roleOffset,
  termOffset,
  votedForOffset,
  voterLogOffset,
  votesGrantedOffset,
  votesRespondedOffset,
  withElection,
  withMessage,
  type TlaState,
} from './tla-state.js';

/** Server i restarts from stable storage: only currentTerm, votedFor and log survive. */
export function restart(raft: TlaRaft, state: TlaState, i: number): TlaState {
  const { servers: count } = raft.bounds;
  const base = i * raft.width;
  if (isRestarted(raft, state.servers, base)) {
    // A stuttering step (TLC still generates it): nothing to copy.
    return raft.successor(state, state.servers, state.messages, state.elections);
  }
  const servers = state.servers.slice();
  servers[base + roleOffset] = follower;
  servers[base + votesRespondedOffset] = 0;
  servers[base + votesGrantedOffset] = 0;
  for (let j = 0; j < count; j++) {
    servers[base + voterLogOffset(count) + j] = absent;
    servers[base + nextIndexOffset + j] = 1;
    servers[base + matchIndexOffset(count) + j] = 0;
  }
  servers[base + commitIndexOffset] = 0;
  return raft.successor(state, servers, state.messages, state.elections);
}

/** Whether the server at `base` holds only what Restart leaves. */
function isRestarted(raft: TlaRaft, servers: readonly number[], base: number): boolean {
  const count = raft.bounds.servers;
  if (servers[base + roleOffset] !== follower || servers[base + commitIndexOffset] !== 0)
    return false;
  if (servers[base + votesRespondedOffset] !== 0 || servers[base + votesGrantedOffset] !== 0)
    return false;
  for (let j = 0; j < count; j++) {
    if (servers[base + voterLogOffset(count) + j] !== absent) return false;
    if (servers[base + nextIndexOffset + j] !== 1) return false;
    if (servers[base + matchIndexOffset(count) + j] !== 0) return false;
  }
  return true;
}

/** Server i times out and starts a new election (it votes for itself by message). */
export function timeout(raft: TlaRaft, state: TlaState, i: number): TlaState | null {
  if (raft.field(state, i, roleOffset) === leader) return null;
  const count = raft.bounds.servers;
  const servers = state.servers.slice();
  const base = i * raft.width;
  servers[base + roleOffset] = candidate;
  servers[base + termOffset]!++;
  servers[base + votedForOffset] = nil;
  servers[base + votesRespondedOffset] = 0;
  servers[base + votesGrantedOffset] = 0;
  for (let j = 0; j < count; j++) servers[base + voterLogOffset(count) + j] = absent;
  return raft.successor(state, servers, state.messages, state.elections);
}

/** Candidate i sends j a RequestVote request (j = i included, as in raft.tla). */
export function requestVote(raft: TlaRaft, state: TlaState, i: number, j: number): TlaState | null {
  if (raft.field(state, i, roleOffset) !== candidate) return null;
  if ((raft.field(state, i, votesRespondedOffset) & (1 << j)) !== 0) return null;
  const log = raft.field(state, i, logOffset);
  const payload = lastTerm(log) | (logLength(log) << 5);
  const low = messageLow(requestVoteRequest, raft.field(state, i, termOffset), i, j, payload);
  return raft.successor(state, state.servers, withMessage(state.messages, low, 0), state.elections);
}

/** Leader i sends j an AppendEntries request with at most one entry. */
export function appendEntries(
  raft: TlaRaft,
  state: TlaState,
  i: number,
  j: number,
): TlaState | null {
  if (i === j || raft.field(state, i, roleOffset) !== leader) return null;
  const log = raft.field(state, i, logOffset);
  const length = logLength(log);
  const nextIndex = raft.field(state, i, nextIndexOffset + j);
  const prevLogIndex = nextIndex - 1;
  assert(prevLogIndex <= length, 'nextIndex beyond the end of the leader log');
  const prevLogTerm = prevLogIndex > 0 ? entryTerm(logEntry(log, prevLogIndex)) : 0;
  const lastEntry = Math.min(length, nextIndex);
  const entry = nextIndex <= lastEntry ? logEntry(log, nextIndex) : 0;
  const commitIndex = Math.min(raft.field(state, i, commitIndexOffset), lastEntry);
  const payload = prevLogIndex | (prevLogTerm << 3) | (entry << 8);
  const low = messageLow(appendEntriesRequest, raft.field(state, i, termOffset), i, j, payload);
  const high = log | (commitIndex << 24);
  const messages = withMessage(state.messages, low, high);
  return raft.successor(state, state.servers, messages, state.elections);
}

/** Candidate i becomes leader once a quorum has granted it a vote. */
export function becomeLeader(raft: TlaRaft, state: TlaState, i: number): TlaState | null {
  if (raft.field(state, i, roleOffset) !== candidate) return null;
  const granted = raft.field(state, i, votesGrantedOffset);
  if (popCount(granted) < raft.quorumSize) return null;
  const count = raft.bounds.servers;
  const servers = state.servers.slice();
  const base = i * raft.width;
  const log = servers[base + logOffset]!;
  servers[base + roleOffset] = leader;
  for (let j = 0; j < count; j++) {
    servers[base + nextIndexOffset + j] = logLength(log) + 1;
    servers[base + matchIndexOffset(count) + j] = 0;
  }
  const election = new Int32Array(2 + count);
  election[0] = servers[base + termOffset]! | (i << 5) | (granted << 8);
  election[1] = log;
  for (let j = 0; j < count; j++) election[2 + j] = servers[base + voterLogOffset(count) + j]!;
  return raft.successor(state, servers, state.messages, withElection(state.elections, election));
}

/** Leader i appends value v to its log. */
export function clientRequest(
  raft: TlaRaft,
  state: TlaState,
  i: number,
  v: number,
): TlaState | null {
  if (raft.field(state, i, roleOffset) !== leader) return null;
  const servers = state.servers.slice();
  const base = i * raft.width;
  servers[base + logOffset] = appendEntry(
    servers[base + logOffset]!,
    entryOf(servers[base + termOffset]!, v),
  );
  return raft.successor(state, servers, state.messages, state.elections);
}

/** Leader i commits the highest index a quorum agrees on, if it is of its own term. */
export function advanceCommitIndex(raft: TlaRaft, state: TlaState, i: number): TlaState | null {
  if (raft.field(state, i, roleOffset) !== leader) return null;
  const count = raft.bounds.servers;
  const base = i * raft.width;
  const log = state.servers[base + logOffset]!;
  let agreeIndex = 0;
  for (let index = logLength(log); index >= 1 && agreeIndex === 0; index--) {
    let agree = 1;
    for (let k = 0; k < count; k++) {
      if (k !== i && state.servers[base + matchIndexOffset(count) + k]! >= index) agree++;
    }
    if (agree >= raft.quorumSize) agreeIndex = index;
  }
  const term = state.servers[base + termOffset]!;
  if (agreeIndex === 0 || entryTerm(logEntry(log, agreeIndex)) !== term) {
    return raft.successor(state, state.servers, state.messages, state.elections);
  }
  const servers = state.servers.slice();
  servers[base + commitIndexOffset] = agreeIndex;
  return raft.successor(state, servers, state.messages, state.elections);
}

/** The number of servers in a bit set. */
function popCount(mask: number): number {
  let count = 0;
  for (let bits = mask; bits !== 0; bits &= bits - 1) count++;
  return count;
}
