/**
 * The Raft invariants about one step, kept as proof-only flags that the step that broke the
 * property sets (no later state could show it): LeaderAppendOnly (§5.3), AppliedOnce,
 * CommitMonotonic, LinearizableReads (dissertation §6.4), NoTermRaisedAlone (§9.6, PreVote)
 * and LeaseRespected (§9.6, CheckQuorum). Only the `raft` model sets them: it sees every step
 * of every server whole; the runtime's tools read states, not steps.
 */
import type { NamedInvariant } from './invariant.js';

export interface RaftFlagsView {
  /** A leader's log lost or changed an entry within its term. */
  readonly leaderLogRewritten: boolean;
  /** An `apply` effect handed an entry already applied, or skipped one. */
  readonly applyOutOfOrder: boolean;
  /**
   * A step lowered a server's commit index or applied index; a restart may come back lower,
   * but never below the commit index it made durable (a commitIndex-only hard state rides the
   * next sync, SyncDuty, so a crash may lose that much and no more).
   */
  readonly commitRolledBack: boolean;
  /** A read was served at an index below an entry committed before it arrived. */
  readonly staleRead: boolean;
  /** An election timeout alone (no message heard) raised a term. */
  readonly termRaisedAlone: boolean;
  /** A node hearing a live leader heeded a vote request of a higher term. */
  readonly leaseBroken: boolean;
}

type FlagInvariant = NamedInvariant<RaftFlagsView>;

/** A flag's witness is what the step that set it did. */
const flagged = (name: string, holds: (view: RaftFlagsView) => boolean, witness: string):
  FlagInvariant => ({ name, holds, explain: () => witness });

export const leaderAppendOnly = flagged('LeaderAppendOnly', (view) => !view.leaderLogRewritten,
  'a leader lost or changed an entry of its log within its term');
export const appliedOnce = flagged('AppliedOnce', (view) => !view.applyOutOfOrder,
  'an apply effect handed an entry already applied, or skipped one');
export const commitMonotonic = flagged('CommitMonotonic', (view) => !view.commitRolledBack,
  "a step lowered a server's commit index or applied index");
export const linearizableReads = flagged('LinearizableReads', (view) => !view.staleRead,
  'a read was served at an index below an entry committed before it came');
export const noTermRaisedAlone = flagged('NoTermRaisedAlone', (view) => !view.termRaisedAlone,
  'an election timeout alone (no message heard) raised a term');
export const leaseRespected = flagged('LeaseRespected', (view) => !view.leaseBroken,
  'a server hearing a live leader heeded a vote request of a higher term');
