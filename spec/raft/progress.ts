/**
 * A leader's view of one follower's replication, after etcd-io/raft's tracker.Progress: in
 * probe the leader sends one append per round trip and backs `next` off on a reject; in
 * replicate it streams appends optimistically, bounded by a window of inflight appends
 * (count and bytes), so an entry goes out once per round trip, not with every heartbeat.
 * Pure; not yet wired into the leader's state (issue 21 item 3).
 */
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

export interface Window {
  readonly maxInflight: number;
  readonly maxInflightBytes: number;
}

export function initialProgress(lastIndex: number): Progress {
  return { state: 'probe', match: 0, next: lastIndex + 1, probeSent: false, inflights: [] };
}

function inflightBytes(progress: Progress): number {
  return progress.inflights.reduce((sum, inflight) => sum + inflight.bytes, 0);
}

/** Whether the leader may send an append now; a heartbeat then carries no entries. */
export function canSend(progress: Progress, window: Window): boolean {
  if (progress.state === 'probe') return !progress.probeSent;
  return (
    progress.inflights.length < window.maxInflight &&
    inflightBytes(progress) < window.maxInflightBytes
  );
}

/** An append carrying entries up to `lastIndex` (`bytes` of them) was sent. */
export function sentAppend(progress: Progress, lastIndex: number, bytes: number): Progress {
  if (progress.state === 'probe') return { ...progress, probeSent: true };
  return {
    ...progress,
    next: Math.max(progress.next, lastIndex + 1),
    inflights: [...progress.inflights, { lastIndex, bytes }],
  };
}

/** The follower matched up to `matchIndex`: advance, free the window, and stream. */
export function appendAccepted(progress: Progress, matchIndex: number): Progress {
  if (matchIndex <= progress.match && progress.state === 'replicate') return progress;
  const match = Math.max(progress.match, matchIndex);
  return {
    state: 'replicate',
    match,
    next: Math.max(progress.next, match + 1),
    probeSent: false,
    inflights: progress.inflights.filter((inflight) => inflight.lastIndex > match),
  };
}

/** The follower rejected at `rejectedNext`; `hint` is its conflict hint (next to try). */
export function appendRejected(progress: Progress, rejectedNext: number, hint: number): Progress {
  // A stale reject (for an index already matched) changes nothing.
  if (rejectedNext <= progress.match) return progress;
  const next = Math.max(progress.match + 1, Math.min(rejectedNext - 1, hint));
  return { state: 'probe', match: progress.match, next, probeSent: false, inflights: [] };
}

/** A heartbeat response lets a probing leader send again (its append may have been lost). */
export function heartbeatAnswered(progress: Progress): Progress {
  return progress.state === 'probe' ? { ...progress, probeSent: false } : progress;
}

/** ProgressConsistent: match < next, the window's bound, and match within the follower's log. */
export function progressConsistent(
  progress: Progress,
  window: Window,
  followerLastIndex: number,
): boolean {
  return (
    progress.match < progress.next &&
    progress.match <= followerLastIndex &&
    progress.inflights.length <= window.maxInflight &&
    progress.inflights.every((inflight) => inflight.lastIndex > progress.match)
  );
}
