/**
 * The Raft invariants, named as DESIGN §3 lists them, in the order the checker tests them, for
 * a view of a whole group (the `raft` model's state is one: it is passed as it is).
 */
import type { NamedInvariant } from './invariant.js';
import type { AppliedView } from './raft-applied.js';
import {
  appliedCommitted,
  appliedUpToCommit,
  explainAppliedCommitted,
  explainAppliedUpToCommit,
} from './raft-applied.js';
import { electionSafety, explainElectionSafety, type ElectionView } from './raft-elections.js';
import {
  appliedOnce,
  commitMonotonic,
  leaderAppendOnly,
  leaseRespected,
  linearizableReads,
  noTermRaisedAlone,
  type RaftFlagsView,
} from './raft-flags.js';
import {
  committedDurable,
  explainCommittedDurable,
  explainLeaderCompleteness,
  explainLogMatching,
  explainStateMachineSafety,
  leaderCompleteness,
  logMatching,
  stateMachineSafety,
  type DurableView,
} from './raft-logs.js';
import { progressConsistentInvariant, type ProgressView } from './raft-progress.js';
import type { RaftReading } from './raft-view.js';
import type { Window } from '../spec/raft/progress.js';

export type RaftGroupView<C, D> =
  ElectionView & DurableView<C, D> & AppliedView<C, D> & RaftFlagsView & ProgressView;

/** `window`: the flow control's (spec/raft/progress.ts windowOf); ProgressConsistent bounds it. */
export function raftInvariants<C, D>(
  reading: RaftReading<C, D>,
  window: Window | null = null,
): readonly NamedInvariant<RaftGroupView<C, D>>[] {
  type View = RaftGroupView<C, D>;
  const read = (name: string, holds: (reading: RaftReading<C, D>, view: View) => boolean,
    explain: (reading: RaftReading<C, D>, view: View) => string): NamedInvariant<View> =>
    ({ name, holds: (view) => holds(reading, view), explain: (view) => explain(reading, view) });
  return [
    {
      name: 'ElectionSafety',
      holds: electionSafety,
      explain: (view) => explainElectionSafety(view, reading.serverName),
    },
    read('LogMatching', logMatching, explainLogMatching),
    read('LeaderCompleteness', leaderCompleteness, explainLeaderCompleteness),
    read('StateMachineSafety', stateMachineSafety, explainStateMachineSafety),
    leaderAppendOnly,
    read('CommittedDurable', committedDurable, explainCommittedDurable),
    read('AppliedCommitted', (_, view) => appliedCommitted(view), explainAppliedCommitted),
    read('AppliedUpToCommit', (_, view) => appliedUpToCommit(view), explainAppliedUpToCommit),
    appliedOnce,
    commitMonotonic,
    linearizableReads,
    noTermRaisedAlone,
    leaseRespected,
    progressConsistentInvariant(window, reading.serverName),
  ];
}
