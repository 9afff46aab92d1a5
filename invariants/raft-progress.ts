/**
 * ProgressConsistent (spec/raft/progress.ts): a leader keeps a progress for every server and
 * a non-leader none; each follower's is consistent: match < next <= the leader's last index
 * + 1, the inflight window's bound, inflights ascending between match and next, none in
 * probe; the leader's own match within its log. Broken, flow control could stall a follower
 * (a window that never frees), send past the log, or count entries the leader lacks.
 */
import { lastLogIndex } from '../spec/raft/log.js';
import { progressConsistent, type Window } from '../spec/raft/progress.js';
import type { RaftNode } from '../spec/raft/types.js';
import type { NamedInvariant } from './invariant.js';

export type ProgressServerView =
  Pick<RaftNode<unknown, unknown>, 'id' | 'role' | 'log' | 'snapshot' | 'progress'>;

export interface ProgressView {
  readonly servers: readonly ProgressServerView[];
}

/** The first inconsistency, as "s1's progress of s2: ...", or null. */
function inconsistency(
  view: ProgressView,
  window: Window | null,
  serverName: (id: number) => string,
): string | null {
  for (const leader of view.servers) {
    const expected = leader.role === 'leader' ? view.servers.length : 0;
    if (leader.progress.length !== expected) {
      return `${serverName(leader.id)} (a ${leader.role}) keeps ${leader.progress.length} ` +
        `progress records, not ${expected}`;
    }
    if (expected === 0) continue;
    const last = lastLogIndex(leader);
    if (leader.progress[leader.id]!.match > last) {
      return `${serverName(leader.id)} counts its own copy up to ` +
        `${leader.progress[leader.id]!.match}, past its last index ${last}`;
    }
    for (const follower of view.servers) {
      if (follower.id === leader.id) continue;
      const progress = leader.progress[follower.id]!;
      if (!progressConsistent(progress, window, last)) {
        return `${serverName(leader.id)}'s progress of ${serverName(follower.id)} ` +
          `${JSON.stringify(progress)} with its last index ${last}`;
      }
    }
  }
  return null;
}

export function progressConsistentInvariant(
  window: Window | null,
  serverName: (id: number) => string,
): NamedInvariant<ProgressView> {
  return {
    name: 'ProgressConsistent',
    holds: (view) => inconsistency(view, window, serverName) === null,
    explain: (view) => inconsistency(view, window, serverName) ?? 'consistent',
  };
}
