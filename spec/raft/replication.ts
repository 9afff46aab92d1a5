/**
 * Log replication (Raft paper §5.3, §5.4.2): proposals appended by the leader as one batch,
 * AppendEntries with up to a configurable number of entries, the follower's conflict hint that
 * lets the leader skip a whole term per round trip (§5.3, end), and the commit rule that only
 * counts replicas of an entry of the leader's own term (Figure 8). Handlers of step.ts; the
 * term rule of §5.1 has run before them.
 */
import { assert } from '../assert.js';
import {
  entriesBetween,
  entryAt,
  firstIndexOfTerm,
  lastIndexOfTerm,
  lastLogIndex,
  snapshotIndex,
  termAt,
} from './log.js';
import { becomeFollower, quorum } from './node.js';
import { acknowledgeReads } from './read-index.js';
import type { Effect, Entry, Message, RaftNode, RaftOptions, Step } from './types.js';

type AppendEntriesRequest<C, S> = Extract<Message<C, S>, { type: 'AppendEntriesRequest' }>;
type AppendEntriesResponse<C, S> = Extract<Message<C, S>, { type: 'AppendEntriesResponse' }>;

const sendSoon = { type: 'sendSoon' } as const;

/**
 * A leader appends a batch of client commands to its log (persisted once, by step.ts) and
 * says where they landed; anyone else refuses them and names the leader it knows. The leader
 * does not count them as its own copy yet: that waits for the storage's report (§10.2.1).
 */
export function handlePropose<C, S>(node: RaftNode<C, S>, commands: readonly C[]): Step<C, S> {
  assert(commands.length > 0, 'a proposal holds at least one command');
  if (node.role !== 'leader') {
    return { node, effects: [{ type: 'proposalRefused', leader: node.leader }] };
  }
  const term = node.currentTerm;
  const index = lastLogIndex(node) + 1;
  // concat, not spread: one copy of a long log per batch, several times faster (bench:cluster).
  const log = node.log.concat(commands.map((command) => ({ term, command })));
  const last = snapshotIndex(node) + log.length;
  assert(last === index + commands.length - 1, 'the batch ends the log');
  const proposed = { type: 'proposed', index, term, count: commands.length } as const;
  return { node: { ...node, log }, effects: [proposed, sendSoon] };
}

/**
 * The storage reports the log durable up to `index` (etcd's MsgStorageAppendResp): a leader
 * now counts its own copy of those entries toward a quorum (maybeCommit, in the same step).
 * A report the log no longer matches there (the entry was replaced since) says nothing of
 * the entries held now, and a non-leader keeps no count of its own: both ignore it.
 */
export function handleLogDurable<C, S>(
  node: RaftNode<C, S>,
  index: number,
  term: number,
): Step<C, S> {
  assert(Number.isInteger(index) && index >= 0, `bad durable index ${index}`);
  if (node.role !== 'leader' || index <= node.matchIndex[node.id]!) return { node, effects: [] };
  if (index > lastLogIndex(node) || termAt(node, index) !== term) return { node, effects: [] };
  const matchIndex = node.matchIndex.slice();
  matchIndex[node.id] = index;
  return { node: { ...node, matchIndex }, effects: [] };
}

/**
 * The leader's AppendEntries to `peer`: the entries from nextIndex[peer] on, at most
 * `maxEntries` of them (none: a heartbeat). Null when those entries are compacted (the caller
 * sends the snapshot instead).
 */
export function appendRequestTo<C, S>(
  node: RaftNode<C, S>,
  peer: number,
  maxEntries: number,
): Effect<C, S> | null {
  assert(Number.isInteger(maxEntries) && maxEntries >= 0, `bad batch size ${maxEntries}`);
  const nextIndex = node.nextIndex[peer]!;
  if (nextIndex <= snapshotIndex(node)) return null;
  const prevLogIndex = nextIndex - 1;
  const prevLogTerm = termAt(node, prevLogIndex);
  assert(prevLogTerm !== undefined, `leader has no entry ${prevLogIndex} before nextIndex`);
  const first = nextIndex - snapshotIndex(node) - 1;
  const entries = node.log.slice(first, first + maxEntries);
  const message: Message<C, S> = {
    type: 'AppendEntriesRequest',
    term: node.currentTerm,
    prevLogIndex,
    prevLogTerm,
    entries,
    leaderCommit: Math.min(node.commitIndex, prevLogIndex + entries.length),
    // Only a pending read needs confirming; 0 confirms none and keeps messages alike.
    readSequence: node.pendingReads.length > 0 ? node.readSequence : 0,
  };
  return { type: 'send', to: peer, message };
}

/**
 * The leader commits the highest index stored on a quorum, but only when that entry is of its
 * own term (§5.4.2, Figure 8; the bug commit-prev-term drops that check), and emits the newly
 * committed entries for the application; when they hold its own term's first entry (the
 * no-op of §6.4), it is ready (`leaderReady`, after them). Unchanged when nothing commits.
 * The leader's own copy counts as far as its storage reported it durable (matchIndex[id],
 * handleLogDurable), as a follower's counts only once it acknowledged it, after its own sync.
 */
export function maybeCommit<C, S>(node: RaftNode<C, S>, options: RaftOptions): Step<C, S> {
  if (node.role !== 'leader') return { node, effects: [] };
  const needed = quorum(node.clusterSize);
  let newCommit = node.commitIndex;
  for (let index = lastLogIndex(node); index > node.commitIndex; index--) {
    let agree = 0;
    for (const match of node.matchIndex) if (match >= index) agree++;
    if (agree < needed) continue;
    const ownTerm = termAt(node, index) === node.currentTerm;
    if (ownTerm || options.bugs?.['commit-prev-term'] === true) newCommit = index;
    break;
  }
  if (newCommit === node.commitIndex) return { node, effects: [] };
  const term = node.currentTerm;
  const entries = entriesBetween(node, node.commitIndex, newCommit);
  const effects: Effect<C, S>[] = [{ type: 'apply', entries }];
  if (termAt(node, node.commitIndex) !== term && termAt(node, newCommit) === term) {
    // A leader's log holds no entry of its term before its no-op (becomeLeader appends it).
    const index = firstIndexOfTerm(node, newCommit, term);
    assert(entryAt(node, index)?.command === null, `entry ${index} of term ${term} is no no-op`);
    effects.push({ type: 'leaderReady', term, index });
  }
  return { node: { ...node, commitIndex: newCommit }, effects };
}

function reply<C, S>(
  to: number,
  term: number,
  fields: { success: boolean; matchIndex: number; conflictTerm: number; conflictIndex: number },
  readSequence: number,
): Effect<C, S> {
  return {
    type: 'send',
    to,
    message: { type: 'AppendEntriesResponse', term, ...fields, readSequence },
  };
}

/**
 * The follower's log with the request's entries (§5.3, receiver rules 3 and 4): an entry held
 * with the same term is kept, since a late or duplicated request must not cut off what a newer
 * one appended; the first conflict truncates the log there and the rest is appended. Entries
 * at or below the snapshot are committed, hence already held, and skipped. The bug
 * truncate-on-every-append cuts the log after the request's entries whether or not they match.
 */
function mergeEntries<C>(
  follower: RaftNode<C, unknown>,
  prevLogIndex: number,
  entries: readonly Entry<C>[],
  options: RaftOptions,
): readonly Entry<C>[] {
  const base = snapshotIndex(follower);
  const first = Math.max(0, base - prevLogIndex);
  if (options.bugs?.['truncate-on-every-append'] === true) {
    const kept = follower.log.slice(0, prevLogIndex + first - base);
    return [...kept, ...entries.slice(first)];
  }
  for (let offset = first; offset < entries.length; offset++) {
    const position = prevLogIndex + offset - base;
    if (follower.log[position]?.term === entries[offset]!.term) continue;
    // Appending at the end (the usual case) copies the log once, not twice.
    const kept = position === follower.log.length ? follower.log : follower.log.slice(0, position);
    return kept.concat(entries.slice(offset));
  }
  return follower.log;
}

/** The §5.3 hint of a follower whose log does not match at prevLogIndex. */
function conflictHint(follower: RaftNode<unknown, unknown>, prevLogIndex: number) {
  const last = lastLogIndex(follower);
  if (prevLogIndex > last) return { conflictTerm: 0, conflictIndex: last + 1 };
  const conflictTerm = termAt(follower, prevLogIndex)!;
  return { conflictTerm, conflictIndex: firstIndexOfTerm(follower, prevLogIndex, conflictTerm) };
}

/**
 * A follower (a (pre)candidate of the same term steps down first) checks that its log
 * matches at prevLogIndex, else names the conflict (§5.3); resolves conflicts by truncating,
 * appends, advances its commit index to what the leader knows committed, hands the newly
 * committed entries to the application (the bug follower-skips-apply does not), and replies.
 */
export function handleAppendEntriesRequest<C, S>(
  node: RaftNode<C, S>,
  from: number,
  request: AppendEntriesRequest<C, S>,
  options: RaftOptions,
): Step<C, S> {
  const sequence = request.readSequence;
  const refused = { success: false, matchIndex: 0, conflictTerm: 0, conflictIndex: 0 };
  if (request.term < node.currentTerm) {
    return { node, effects: [reply(from, node.currentTerm, refused, sequence)] };
  }
  // Two leaders of one term only exist under a bug; ElectionSafety reports them.
  if (node.role === 'leader') return { node, effects: [] };
  const follower =
    node.role === 'follower'
      ? { ...node, leader: from }
      : becomeFollower(node, node.currentTerm, from);
  const effects: Effect<C, S>[] = [{ type: 'setTimer', timer: 'election' }];
  const base = snapshotIndex(follower);
  // A prefix below the snapshot is compacted, hence committed, hence matches the leader's.
  const prefixMatches =
    request.prevLogIndex < base || termAt(follower, request.prevLogIndex) === request.prevLogTerm;
  if (!prefixMatches) {
    const hint = { ...refused, ...conflictHint(follower, request.prevLogIndex) };
    effects.push(reply(from, follower.currentTerm, hint, sequence));
    return { node: follower, effects };
  }
  const log = mergeEntries(follower, request.prevLogIndex, request.entries, options);
  let next: RaftNode<C, S> = log === follower.log ? follower : { ...follower, log };
  const lastNew = request.prevLogIndex + request.entries.length;
  const commit = Math.min(request.leaderCommit, lastNew);
  if (commit > next.commitIndex) {
    const entries = entriesBetween(next, next.commitIndex, commit);
    if (options.bugs?.['follower-skips-apply'] !== true) effects.push({ type: 'apply', entries });
    next = { ...next, commitIndex: commit };
  }
  // The log now matches the leader's up to lastNew, and up to the snapshot in any case.
  const matched = Math.max(lastNew, base);
  const success = { success: true, matchIndex: matched, conflictTerm: 0, conflictIndex: 0 };
  effects.push(reply(from, next.currentTerm, success, sequence));
  return { node: next, effects };
}

/** Where the leader resumes after a mismatch: past its own entries of the conflicting term. */
function nextAfterConflict<C, S>(
  node: RaftNode<C, S>,
  from: number,
  response: AppendEntriesResponse<C, S>,
): number {
  let hint = response.conflictIndex;
  if (response.conflictTerm > 0) {
    const last = lastIndexOfTerm(node, response.conflictTerm);
    if (last !== undefined) hint = last + 1;
  }
  // Back off at least one entry (a stale reply's hint may not), never below what matches.
  const current = node.nextIndex[from]!;
  return Math.max(node.matchIndex[from]! + 1, Math.min(current - 1, hint));
}

/** The leader records a follower's progress (and its confirmation of pending reads). */
export function handleAppendEntriesResponse<C, S>(
  node: RaftNode<C, S>,
  from: number,
  response: AppendEntriesResponse<C, S>,
): Step<C, S> {
  if (response.term !== node.currentTerm || node.role !== 'leader') return { node, effects: [] };
  const nextIndex = node.nextIndex.slice();
  const matchIndex = node.matchIndex.slice();
  if (response.success) {
    matchIndex[from] = Math.max(matchIndex[from]!, response.matchIndex);
    nextIndex[from] = Math.max(nextIndex[from]!, response.matchIndex + 1);
  } else {
    nextIndex[from] = nextAfterConflict(node, from, response);
  }
  const progressed = acknowledgeReads({ ...node, nextIndex, matchIndex }, from, response);
  const lagging = nextIndex[from]! <= lastLogIndex(node);
  return { node: progressed, effects: lagging ? [sendSoon] : [] };
}
