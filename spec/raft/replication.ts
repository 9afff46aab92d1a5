/**
 * Log replication (Raft paper §5.3, §5.4.2): proposals appended by the leader as one batch,
 * AppendEntries bounded in entries and bytes and paced per follower by its progress (flow
 * control, progress.ts), the follower's conflict hint that
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
import {
  appendedLogEntries,
  firstLogEntries,
  logEntriesSlice,
  logEntryAt,
  type LogEntries,
} from './log-entries.js';
import { snapshotRequestTo } from './compaction.js';
import { entryBytes } from './entry-bytes.js';
import { becomeFollower, quorum } from './node.js';
import {
  appendAccepted,
  appendRejected,
  canSend,
  durableUpTo,
  heartbeatPrevious,
  sentAppend,
  sentSnapshot,
  windowOf,
  withProgress,
  type Progress,
} from './progress.js';
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
  // A persistent vector: the batch copies the log's tail, not the log (bench raft-log).
  const log = appendedLogEntries(node.log, commands.map((command) => ({ term, command })));
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
  if (node.role !== 'leader' || index <= node.progress[node.id]!.match) {
    return { node, effects: [] };
  }
  if (index > lastLogIndex(node) || termAt(node, index) !== term) return { node, effects: [] };
  const progress = durableUpTo(node.progress[node.id]!, index);
  return { node: withProgress(node, node.id, progress), effects: [] };
}

/** The entries from `first` (a position in the log) within the count and byte bounds. */
function boundedEntries<C>(
  log: LogEntries<C>,
  first: number,
  maxEntries: number,
  maxBytes: number,
): { entries: readonly Entry<C>[]; bytes: number } {
  let bytes = 0;
  let end = first;
  const limit = Math.min(log.length, first + maxEntries);
  while (end < limit) {
    const size = entryBytes(logEntryAt(log, end)!);
    // At least one entry: one larger than the bound goes alone.
    if (end > first && bytes + size > maxBytes) break;
    bytes += size;
    end++;
  }
  return { entries: end === first ? [] : logEntriesSlice(log, first, end), bytes };
}

function appendRequest<C, S>(
  node: RaftNode<C, S>,
  prevLogIndex: number,
  entries: readonly Entry<C>[],
): Message<C, S> {
  // Index 0 is before every log, compacted or not.
  const prevLogTerm = prevLogIndex === 0 ? 0 : termAt(node, prevLogIndex);
  assert(prevLogTerm !== undefined, `leader has no entry ${prevLogIndex} to send after`);
  return {
    type: 'AppendEntriesRequest',
    term: node.currentTerm,
    prevLogIndex,
    prevLogTerm,
    entries,
    leaderCommit: Math.min(node.commitIndex, prevLogIndex + entries.length),
    // Only a pending read needs confirming; 0 confirms none and keeps messages alike.
    readSequence: node.pendingReads.length > 0 ? node.readSequence : 0,
  };
}

/**
 * What the leader sends `peer` now, and the peer's progress after it (progress.ts). When its
 * flow control lets an append go and entries wait: the entries from next on, at most
 * maxEntriesPerAppend and maxBytesPerAppend of them (at least one), or the snapshot when
 * those are compacted (then also to a stream whose window is full). Else an empty heartbeat
 * (it carries the commit index) after heartbeatPrevious, or after index 0, which every log
 * holds, when that one is compacted (a probe behind the snapshot).
 */
export function replicateTo<C, S>(
  node: RaftNode<C, S>,
  peer: number,
  options: RaftOptions,
): { effect: Effect<C, S>; progress: Progress } {
  const progress = node.progress[peer]!;
  const window = windowOf(options);
  const base = snapshotIndex(node);
  const pending = progress.next <= lastLogIndex(node);
  // A stream that needs compacted entries gets the snapshot at once (etcd's StateSnapshot):
  // no heartbeat could tell it anything, its window would never free.
  const compacted = progress.next <= base;
  const streamCompacted = compacted && progress.state === 'replicate';
  if ((canSend(progress, window) && (pending || window === null)) || streamCompacted) {
    if (compacted) {
      return { effect: snapshotRequestTo(node, peer), progress: sentSnapshot(progress, window) };
    }
    const maxEntries = options.maxEntriesPerAppend ?? 1;
    assert(Number.isInteger(maxEntries) && maxEntries >= 0, `bad batch size ${maxEntries}`);
    const maxBytes = options.maxBytesPerAppend ?? Number.POSITIVE_INFINITY;
    const batch = boundedEntries(node.log, progress.next - base - 1, maxEntries, maxBytes);
    const message = appendRequest(node, progress.next - 1, batch.entries);
    const last = progress.next - 1 + batch.entries.length;
    const sent = batch.entries.length === 0 ? progress
      : sentAppend(progress, last, batch.bytes, window);
    return { effect: { type: 'send', to: peer, message }, progress: sent };
  }
  const previous = heartbeatPrevious(progress);
  const message = appendRequest(node, previous < base ? 0 : previous, []);
  return { effect: { type: 'send', to: peer, message }, progress };
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
    for (const { match } of node.progress) if (match >= index) agree++;
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
): LogEntries<C> {
  const base = snapshotIndex(follower);
  const first = Math.max(0, base - prevLogIndex);
  const log = follower.log;
  if (options.bugs?.['truncate-on-every-append'] === true) {
    const kept = firstLogEntries(log, prevLogIndex + first - base);
    return appendedLogEntries(kept, entries.slice(first));
  }
  for (let offset = first; offset < entries.length; offset++) {
    const position = prevLogIndex + offset - base;
    if (logEntryAt(log, position)?.term === entries[offset]!.term) continue;
    // Appending at the end (the usual case) keeps the whole log, copying only its tail.
    const kept = position === log.length ? log : firstLogEntries(log, position);
    return appendedLogEntries(kept, entries.slice(offset));
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

/** The follower's §5.3 hint, as the index after the leader's entries of the conflicting term. */
function conflictHintNext<C, S>(node: RaftNode<C, S>, response: AppendEntriesResponse<C, S>) {
  if (response.conflictTerm > 0) {
    const last = lastIndexOfTerm(node, response.conflictTerm);
    if (last !== undefined) return last + 1;
  }
  return response.conflictIndex;
}

/**
 * The leader records a follower's progress (and its confirmation of pending reads), and asks
 * to send soon when its flow control lets entries that wait go.
 */
export function handleAppendEntriesResponse<C, S>(
  node: RaftNode<C, S>,
  from: number,
  response: AppendEntriesResponse<C, S>,
  options: RaftOptions,
): Step<C, S> {
  if (response.term !== node.currentTerm || node.role !== 'leader') return { node, effects: [] };
  const before = node.progress[from]!;
  const window = windowOf(options);
  const progress = response.success
    ? appendAccepted(before, response.matchIndex, window)
    : appendRejected(before, conflictHintNext(node, response));
  const progressed = acknowledgeReads(withProgress(node, from, progress), from, response);
  const lagging = progress.next <= lastLogIndex(node) && canSend(progress, window);
  return { node: progressed, effects: lagging ? [sendSoon] : [] };
}
