/**
 * A leader's view of one follower's replication, after etcd-io/raft's tracker.Progress: in
 * probe the leader sends one append per round trip and backs `next` off on a reject; in
 * replicate it streams appends optimistically, bounded by a window of inflight appends
 * (count and bytes), so an entry goes out once per round trip, not with every heartbeat.
 * The leader keeps one per server while it leads (RaftNode.progress); its own entry's match
 * is what its storage reported durable.
 *
 * Without a window (RaftOptions.maxInflightAppends absent: the models' default, raft.tla's
 * behaviour) a progress never leaves probe and never marks a probe sent: every heartbeat
 * sends from `next` again, and only match and next change.
 */
import type { RaftNode, RaftOptions } from './types.js';

export type ProgressState = 'probe' | 'replicate';

export interface Inflight {
  /** Last log index the append carried. */
  readonly lastIndex: number;
  readonly bytes: number;
}

export interface Progress {
  readonly state: ProgressState;
  /** Highest index known to match the follower's log. */
  readonly match: number;
  /** Next index to send. */
  readonly next: number;
  /** In probe, an append is outstanding; the next is sent after a response or a heartbeat. */
  readonly probeSent: boolean;
  /** Appends sent and not yet acknowledged, oldest first. */
  readonly inflights: readonly Inflight[];
}

/** The inflight window; null: no flow control (see above). */
export interface Window {
  readonly maxInflight: number;
  readonly maxInflightBytes: number;
}

/** The window the options set: maxInflightAppends absent or 0 is none. */
export function windowOf(options: RaftOptions): Window | null {
  const maxInflight = options.maxInflightAppends ?? 0;
  if (maxInflight === 0) return null;
  return { maxInflight, maxInflightBytes: options.maxInflightBytes ?? Number.POSITIVE_INFINITY };
}

export function initialProgress(lastIndex: number): Progress {
  return { state: 'probe', match: 0, next: lastIndex + 1, probeSent: false, inflights: [] };
}

function inflightBytes(progress: Progress): number {
  return progress.inflights.reduce((sum, inflight) => sum + inflight.bytes, 0);
}

/** Whether the leader may send an append now; else a heartbeat carries no entries. */
export function canSend(progress: Progress, window: Window | null): boolean {
  if (window === null) return true;
  if (progress.state === 'probe') return !progress.probeSent;
  return (
    progress.inflights.length < window.maxInflight &&
    inflightBytes(progress) < window.maxInflightBytes
  );
}

/** An append carrying entries up to `lastIndex` (`bytes` of them) was sent. */
export function sentAppend(
  progress: Progress,
  lastIndex: number,
  bytes: number,
  window: Window | null,
): Progress {
  if (window === null) return progress;
  if (progress.state === 'probe') return { ...progress, probeSent: true };
  return {
    ...progress,
    next: Math.max(progress.next, lastIndex + 1),
    inflights: [...progress.inflights, { lastIndex, bytes }],
  };
}

/** The snapshot was sent: one at a time, answered like a probe. */
export function sentSnapshot(progress: Progress, window: Window | null): Progress {
  if (window === null) return progress;
  return { state: 'probe', match: progress.match, next: progress.next, probeSent: true,
    inflights: [] };
}

/**
 * The follower matched up to `matchIndex`. Nothing new (an answered heartbeat, a late or
 * duplicated ack) only lets a probe go again; more advances match, frees the window and
 * streams from just after the match (etcd's BecomeReplicate).
 */
export function appendAccepted(
  progress: Progress,
  matchIndex: number,
  window: Window | null,
): Progress {
  if (matchIndex <= progress.match) return heartbeatAnswered(progress);
  const match = matchIndex;
  if (window === null) return { ...progress, match, next: Math.max(progress.next, match + 1) };
  const next = progress.state === 'probe' ? match + 1 : Math.max(progress.next, match + 1);
  return {
    state: 'replicate',
    match,
    next,
    probeSent: false,
    inflights: progress.inflights.filter((inflight) => inflight.lastIndex > match),
  };
}

/**
 * The follower's log does not hold the entry before `next`; `hint` is where the leader's
 * entries of the follower's conflicting term end (§5.3). Back off at least one entry (a late
 * reject's hint may not) and never below what matches, then probe. A reply does not say
 * which append it answers: a late reject of a stream backs off once more than needed (at
 * most to match + 1), never below.
 */
export function appendRejected(progress: Progress, hint: number): Progress {
  const next = Math.max(progress.match + 1, Math.min(progress.next - 1, hint));
  return { state: 'probe', match: progress.match, next, probeSent: false, inflights: [] };
}

/** A heartbeat response lets a probing leader send again (its append may have been lost). */
export function heartbeatAnswered(progress: Progress): Progress {
  return progress.probeSent ? { ...progress, probeSent: false } : progress;
}

/**
 * The index an empty heartbeat names as its previous entry: in probe with an append
 * outstanding, the match (which the follower holds, so it never refuses it); else next - 1,
 * so a stream whose tail was lost is refused and probed again.
 */
export function heartbeatPrevious(progress: Progress): number {
  return progress.state === 'probe' && progress.probeSent ? progress.match : progress.next - 1;
}

/** The leader's own copy counts once its storage reports it durable up to `index` (its own
 * next is never used: it sends itself nothing). */
export function durableUpTo(progress: Progress, index: number): Progress {
  return { ...progress, match: index };
}

/**
 * ProgressConsistent: match < next <= the leader's last index + 1; the window's bound; the
 * inflights ascend, above match and below next; a probe has none; without a window, always a
 * probe with none sent. (That match lies within the follower's log is not checked here: the
 * bug truncate-on-every-append breaks exactly that, and CommittedDurable names what it costs.)
 */
export function progressConsistent(
  progress: Progress,
  window: Window | null,
  leaderLastIndex: number,
): boolean {
  const inflights = progress.inflights;
  const ascending = inflights.every((inflight, at) =>
    inflight.lastIndex > (at === 0 ? progress.match : inflights[at - 1]!.lastIndex) &&
    inflight.lastIndex < progress.next);
  return (
    progress.match < progress.next &&
    progress.next <= leaderLastIndex + 1 &&
    inflights.length <= (window?.maxInflight ?? 0) &&
    (progress.state === 'replicate' || inflights.length === 0) &&
    (window !== null || (progress.state === 'probe' && !progress.probeSent)) &&
    ascending
  );
}

/** The node with `peer`'s progress replaced. */
export function withProgress<C, S>(
  node: RaftNode<C, S>,
  peer: number,
  progress: Progress,
): RaftNode<C, S> {
  const all = node.progress.slice();
  all[peer] = progress;
  return { ...node, progress: all };
}
