/**
 * Log compaction (Raft paper §7): a server replaces a committed prefix of its log with a
 * snapshot; a leader whose follower needs compacted entries sends its snapshot instead
 * (InstallSnapshot, in one message: the model's snapshots are small).
 */
import { assert } from '../assert.js';
import { lastLogIndex, termAt, valueAt } from './log.js';
import { becomeFollower, persistEffect } from './server.js';
import type { Effect, Message, RaftOptions, RaftServer, Snapshot, Step } from './types.js';

type InstallSnapshotRequest = Extract<Message, { type: 'InstallSnapshotRequest' }>;
type InstallSnapshotResponse = Extract<Message, { type: 'InstallSnapshotResponse' }>;

/**
 * Compact the log up to `index` (the caller decides when and how far: the runtime by log size,
 * the model by a bounded action). Only committed entries are compacted.
 */
export function compactLog(
  server: RaftServer,
  index: number,
  options: RaftOptions = {},
): Step | null {
  const base = server.snapshot.lastIncludedIndex;
  if (index <= base || index > server.commitIndex) return null;
  const values = server.snapshot.values.slice();
  for (let at = base + 1; at <= index; at++) values.push(valueAt(server, at)!);
  const snapshot: Snapshot = {
    lastIncludedIndex: index,
    lastIncludedTerm: termAt(server, index)!,
    values,
  };
  const next = { ...server, snapshot, log: server.log.slice(index - base) };
  assert(lastLogIndex(next) === lastLogIndex(server), 'compaction keeps the last index');
  return { server: next, effects: [persistEffect(next, options)] };
}

/** The leader sends its snapshot to a follower whose nextIndex is already compacted. */
export function installSnapshot(server: RaftServer, peer: number): Step | null {
  if (server.role !== 'leader' || peer === server.id) return null;
  if (server.nextIndex[peer]! > server.snapshot.lastIncludedIndex) return null;
  const message: Message = {
    type: 'InstallSnapshotRequest',
    term: server.currentTerm,
    snapshot: server.snapshot,
  };
  return { server, effects: [{ type: 'send', to: peer, message }] };
}

/**
 * A follower takes a snapshot newer than what it has committed: it keeps the log after the
 * snapshot when its entry at lastIncludedIndex has the same term, else drops the whole log.
 */
export function handleInstallSnapshotRequest(
  server: RaftServer,
  from: number,
  request: InstallSnapshotRequest,
  options: RaftOptions = {},
): Step {
  const reply = (term: number, matchIndex: number): Effect => ({
    type: 'send',
    to: from,
    message: { type: 'InstallSnapshotResponse', term, matchIndex },
  });
  if (request.term < server.currentTerm) return { server, effects: [reply(server.currentTerm, 0)] };
  if (server.role === 'leader') return { server, effects: [] };
  const follower = server.role === 'candidate' ? becomeFollower(server, request.term) : server;
  const snapshot = request.snapshot;
  const effects: Effect[] = [{ type: 'setTimer', timer: 'election' }];
  if (snapshot.lastIncludedIndex <= follower.commitIndex) {
    effects.push(reply(follower.currentTerm, snapshot.lastIncludedIndex));
    return { server: follower, effects };
  }
  const keep = termAt(follower, snapshot.lastIncludedIndex) === snapshot.lastIncludedTerm;
  const log = keep
    ? follower.log.slice(snapshot.lastIncludedIndex - follower.snapshot.lastIncludedIndex)
    : [];
  const next = { ...follower, snapshot, log, commitIndex: snapshot.lastIncludedIndex };
  effects.unshift(persistEffect(next, options), { type: 'restoreSnapshot', snapshot });
  effects.push(reply(next.currentTerm, snapshot.lastIncludedIndex));
  return { server: next, effects };
}

/** The leader learns the follower now matches up to the snapshot. */
export function handleInstallSnapshotResponse(
  server: RaftServer,
  from: number,
  response: InstallSnapshotResponse,
): Step {
  if (response.term !== server.currentTerm || server.role !== 'leader')
    return { server, effects: [] };
  const nextIndex = server.nextIndex.slice();
  const matchIndex = server.matchIndex.slice();
  matchIndex[from] = Math.max(matchIndex[from]!, response.matchIndex);
  nextIndex[from] = Math.max(nextIndex[from]!, response.matchIndex + 1);
  return { server: { ...server, nextIndex, matchIndex }, effects: [] };
}
