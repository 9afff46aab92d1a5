/**
 * Log replication (Raft paper §5.3, §5.4.2; raft.tla's ClientRequest, AppendEntries,
 * AdvanceCommitIndex and the AppendEntries handlers). AppendEntries carries at most one entry,
 * raft.tla's granularity; the runtime may call it repeatedly to send more.
 */
import { assert } from '../assert.js';
import { entriesBetween, lastLogIndex, termAt } from './log.js';
import { becomeFollower, persistEffect, quorum } from './server.js';
import type { Effect, Entry, Message, RaftOptions, RaftServer, Step } from './types.js';

type AppendEntriesRequest = Extract<Message, { type: 'AppendEntriesRequest' }>;
type AppendEntriesResponse = Extract<Message, { type: 'AppendEntriesResponse' }>;

/** The leader appends a client's value to its log and persists it. */
export function clientRequest(
  server: RaftServer,
  value: number,
  options: RaftOptions = {},
): Step | null {
  if (server.role !== 'leader') return null;
  const log = [...server.log, { term: server.currentTerm, value }];
  const matchIndex = server.matchIndex.slice();
  const next = { ...server, log, matchIndex };
  matchIndex[server.id] = lastLogIndex(next);
  return { server: next, effects: [persistEffect(next, options)] };
}

/**
 * The leader sends `peer` the entries from nextIndex[peer] on, at most `maxEntries` of them
 * (none: a heartbeat). The model sends one, raft.tla's granularity; how many to batch is the
 * runtime's decision, so it is an input.
 */
export function appendEntries(server: RaftServer, peer: number, maxEntries = 1): Step | null {
  if (server.role !== 'leader' || peer === server.id) return null;
  assert(Number.isInteger(maxEntries) && maxEntries >= 0, `bad batch size ${maxEntries}`);
  const nextIndex = server.nextIndex[peer]!;
  if (nextIndex <= server.snapshot.lastIncludedIndex) return null;
  const prevLogIndex = nextIndex - 1;
  const prevLogTerm = termAt(server, prevLogIndex);
  assert(prevLogTerm !== undefined, `leader has no entry ${prevLogIndex} before nextIndex`);
  const first = nextIndex - server.snapshot.lastIncludedIndex - 1;
  const entries = server.log.slice(first, first + maxEntries);
  const message: Message = {
    type: 'AppendEntriesRequest',
    term: server.currentTerm,
    prevLogIndex,
    prevLogTerm,
    entries,
    leaderCommit: Math.min(server.commitIndex, prevLogIndex + entries.length),
  };
  return { server, effects: [{ type: 'send', to: peer, message }] };
}

/**
 * The leader commits the highest index stored on a quorum, but only when that entry is of its
 * own term (§5.4.2, Figure 8); commit-prev-term drops that check. Null when nothing changes.
 */
export function advanceCommitIndex(server: RaftServer, options: RaftOptions = {}): Step | null {
  if (server.role !== 'leader') return null;
  const needed = quorum(server.clusterSize);
  let newCommit = server.commitIndex;
  for (let index = lastLogIndex(server); index > server.commitIndex; index--) {
    const agree = server.matchIndex.filter(
      (match, peer) => peer === server.id || match >= index,
    ).length;
    if (agree < needed) continue;
    if (options.commitPrevTerm || termAt(server, index) === server.currentTerm) newCommit = index;
    break;
  }
  if (newCommit === server.commitIndex) return null;
  const entries = entriesBetween(server, server.commitIndex, newCommit);
  return { server: { ...server, commitIndex: newCommit }, effects: [{ type: 'apply', entries }] };
}

function reply(to: number, term: number, success: boolean, matchIndex: number): Effect {
  return {
    type: 'send',
    to,
    message: { type: 'AppendEntriesResponse', term, success, matchIndex },
  };
}

/**
 * The follower's log with the request's entries (§5.3, receiver rule 3 and 4): an entry held
 * with the same term is kept, since a late or duplicated request must not cut off what a newer
 * one appended; the first conflict truncates the log there and the rest is appended. Entries
 * at or below the snapshot are committed, hence already held, and skipped.
 */
function mergeEntries(
  follower: RaftServer,
  prevLogIndex: number,
  entries: readonly Entry[],
): readonly Entry[] {
  const base = follower.snapshot.lastIncludedIndex;
  for (let offset = Math.max(0, base - prevLogIndex); offset < entries.length; offset++) {
    const position = prevLogIndex + offset - base;
    if (follower.log[position]?.term === entries[offset]!.term) continue;
    return [...follower.log.slice(0, position), ...entries.slice(offset)];
  }
  return follower.log;
}

/**
 * A follower (or a candidate, which steps down) checks that its log matches at prevLogIndex,
 * resolves conflicts by truncating (§5.3), appends, persists, advances its commit index to
 * what the leader knows committed, and replies. The model sends at most one entry; a runtime
 * may send batches, which this handles entry by entry.
 */
export function handleAppendEntriesRequest(
  server: RaftServer,
  from: number,
  request: AppendEntriesRequest,
  options: RaftOptions = {},
): Step {
  if (request.term < server.currentTerm) {
    return { server, effects: [reply(from, server.currentTerm, false, 0)] };
  }
  if (server.role === 'leader') return { server, effects: [] };
  const follower = server.role === 'candidate' ? becomeFollower(server, request.term) : server;
  const effects: Effect[] = [{ type: 'setTimer', timer: 'election' }];
  const base = follower.snapshot.lastIncludedIndex;
  // A prefix below the snapshot is compacted, hence committed, hence matches the leader's.
  const prefixMatches =
    request.prevLogIndex < base || termAt(follower, request.prevLogIndex) === request.prevLogTerm;
  if (!prefixMatches) {
    effects.push(reply(from, follower.currentTerm, false, 0));
    return { server: follower, effects };
  }
  const log = mergeEntries(follower, request.prevLogIndex, request.entries);
  let next: RaftServer = log === follower.log ? follower : { ...follower, log };
  if (next !== follower) effects.unshift(persistEffect(next, options));
  const lastNew = request.prevLogIndex + request.entries.length;
  const commit = Math.min(request.leaderCommit, lastNew);
  if (commit > next.commitIndex) {
    effects.push({ type: 'apply', entries: entriesBetween(next, next.commitIndex, commit) });
    next = { ...next, commitIndex: commit };
  }
  // The log now matches the leader's up to lastNew, and up to the snapshot in any case.
  effects.push(reply(from, next.currentTerm, true, Math.max(lastNew, base)));
  return { server: next, effects };
}

/** The leader records a follower's progress, or backs nextIndex off by one on a mismatch. */
export function handleAppendEntriesResponse(
  server: RaftServer,
  from: number,
  response: AppendEntriesResponse,
): Step {
  if (response.term !== server.currentTerm || server.role !== 'leader')
    return { server, effects: [] };
  const nextIndex = server.nextIndex.slice();
  const matchIndex = server.matchIndex.slice();
  if (response.success) {
    matchIndex[from] = Math.max(matchIndex[from]!, response.matchIndex);
    nextIndex[from] = Math.max(nextIndex[from]!, response.matchIndex + 1);
  } else {
    nextIndex[from] = Math.max(nextIndex[from]! - 1, 1);
  }
  return { server: { ...server, nextIndex, matchIndex }, effects: [] };
}
