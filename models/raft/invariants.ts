/**
 * Raft's safety properties (Raft paper Figure 3, and §5.4), named as DESIGN §3 lists them,
 * and those of ReadIndex (dissertation §6.4), PreVote and the leader lease (§9.6). Those about
 * history read the model's proof-only history variables: `elected` (who became leader in
 * which term), `committed` (what was committed, and when), and the flags. Those about the
 * applications read what the apply and restoreSnapshot effects left (`applied`).
 */
import type { Invariant } from '../../checker/model.js';
import { lastLogIndex, termAt } from '../../spec/raft/log.js';
import {
  commandAt,
  holdsCommitted,
  type RaftModelState,
} from './model-state.js';
import { countVotes, quorum } from '../../spec/raft/node.js';
import {
  explainAppliedCommitted,
  explainAppliedUpToCommit,
  explainCommittedDurable,
  explainElectionSafety,
  explainLeaderCompleteness,
  explainLogMatching,
  explainStateMachineSafety,
  flagWitnesses,
} from './witnesses.js';

/** Election Safety: at most one leader can be elected in a given term (§5.2). */
export function electionSafety(state: RaftModelState): boolean {
  return state.elected.every((mask) => countVotes(mask) <= 1);
}

/** Log Matching: two logs with an entry of the same index and term agree up to it (§5.3). */
export function logMatching(state: RaftModelState): boolean {
  const { servers } = state;
  for (let i = 0; i < servers.length; i++) {
    for (let j = i + 1; j < servers.length; j++) {
      const a = servers[i]!;
      const b = servers[j]!;
      const shorter = Math.min(lastLogIndex(a), lastLogIndex(b));
      for (let index = shorter; index >= 1; index--) {
        const term = termAt(a, index);
        if (term === undefined || term !== termAt(b, index)) continue;
        for (let earlier = 1; earlier <= index; earlier++) {
          if (commandAt(a, earlier) !== commandAt(b, earlier)) return false;
          const termA = termAt(a, earlier);
          const termB = termAt(b, earlier);
          if (termA !== undefined && termB !== undefined && termA !== termB) return false;
        }
        break;
      }
    }
  }
  return true;
}

/** Leader Completeness: a leader holds every entry committed in an earlier term (§5.4). */
export function leaderCompleteness(state: RaftModelState): boolean {
  for (const server of state.servers) {
    if (server.role !== 'leader') continue;
    for (const record of state.committed) {
      if (server.currentTerm > record.inTerm && !holdsCommitted(server, record)) return false;
    }
  }
  return true;
}

/**
 * State Machine Safety: no server applies (commits) at an index an entry other than the one
 * committed there, so no two servers apply different entries at one index; snapshots count
 * as applied.
 */
export function stateMachineSafety(state: RaftModelState): boolean {
  for (const server of state.servers) {
    for (let index = 1; index <= server.commitIndex; index++) {
      const record = state.committed[index - 1];
      if (record === undefined || !holdsCommitted(server, record)) return false;
    }
  }
  return true;
}

/**
 * Applied Committed: every server's application applied a prefix of the one committed log
 * (§5.4.3's State Machine Safety, read from what the application holds, not from the log).
 */
export function appliedCommitted(state: RaftModelState): boolean {
  for (const applied of state.applied) {
    if (applied.length > state.committed.length) return false;
    for (let at = 0; at < applied.length; at++) {
      if (applied[at] !== state.committed[at]!.command) return false;
    }
  }
  return true;
}

/**
 * Applied Up To Commit: the model's application applies in the step that commits, so every
 * server's applied index equals its commit index after every step: a node that commits an
 * entry without handing it to the application breaks it.
 */
export function appliedUpToCommit(state: RaftModelState): boolean {
  return state.servers.every((server, id) => state.applied[id]!.length === server.commitIndex);
}

/** Applied Once: every `apply` hands the next index, so no entry is applied twice or skipped. */
export function appliedOnce(state: RaftModelState): boolean {
  return !state.applyOutOfOrder;
}

/**
 * Commit Monotonic: no step lowers a server's commit index or applied index; a restart comes
 * back at least at the commit index it made durable (a commitIndex-only hard state rides the
 * next sync, SyncDuty, so a crash may lose that much and no more).
 */
export function commitMonotonic(state: RaftModelState): boolean {
  return !state.commitRolledBack;
}

/** Leader Append-Only: a leader never overwrites or deletes entries in its log (§5.3). */
export function leaderAppendOnly(state: RaftModelState): boolean {
  return !state.leaderLogRewritten;
}

/**
 * Committed Durable: every committed entry is durable on a quorum (a crash keeps it), so no
 * leader loses it: a leader that counted its own copy before its storage reported it breaks it.
 */
export function committedDurable(state: RaftModelState): boolean {
  const needed = quorum(state.servers.length);
  for (const record of state.committed) {
    let copies = 0;
    for (const { snapshot, entries } of state.durable) {
      if (holdsCommitted({ snapshot, log: entries }, record)) copies++;
    }
    if (copies < needed) return false;
  }
  return true;
}

/**
 * Linearizable Reads (§6.4): a read is served at an index at least that of every entry
 * committed before the read arrived, so it sees every write acknowledged before it.
 */
export function linearizableReads(state: RaftModelState): boolean {
  return !state.staleRead;
}

/** No Term Raised Alone (§9.6, PreVote): an isolated node never raises its term. */
export function noTermRaisedAlone(state: RaftModelState): boolean {
  return !state.termRaisedAlone;
}

/** Lease Respected (§9.6, CheckQuorum): a node hearing a live leader ignores vote requests. */
export function leaseRespected(state: RaftModelState): boolean {
  return !state.leaseBroken;
}

export const raftInvariants: readonly Invariant<RaftModelState>[] = [
  { name: 'ElectionSafety', holds: electionSafety, explain: explainElectionSafety },
  { name: 'LogMatching', holds: logMatching, explain: explainLogMatching },
  { name: 'LeaderCompleteness', holds: leaderCompleteness, explain: explainLeaderCompleteness },
  { name: 'StateMachineSafety', holds: stateMachineSafety, explain: explainStateMachineSafety },
  { name: 'LeaderAppendOnly', holds: leaderAppendOnly },
  { name: 'CommittedDurable', holds: committedDurable, explain: explainCommittedDurable },
  { name: 'AppliedCommitted', holds: appliedCommitted, explain: explainAppliedCommitted },
  { name: 'AppliedUpToCommit', holds: appliedUpToCommit, explain: explainAppliedUpToCommit },
  { name: 'AppliedOnce', holds: appliedOnce },
  { name: 'CommitMonotonic', holds: commitMonotonic },
  { name: 'LinearizableReads', holds: linearizableReads },
  { name: 'NoTermRaisedAlone', holds: noTermRaisedAlone },
  { name: 'LeaseRespected', holds: leaseRespected },
].map((invariant) => {
  // A flag's witness is what the step that set it did.
  const flag = flagWitnesses[invariant.name];
  return flag === undefined ? invariant : { ...invariant, explain: () => flag };
});

export const raftInvariantNames = raftInvariants.map((invariant) => invariant.name);
