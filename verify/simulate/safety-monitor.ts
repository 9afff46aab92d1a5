/**
 * The invariants the simulator checks after every event, from the servers' own state
 * (`Server.view()`), never from what the simulator believes happened. Each is the library's
 * (invariants/), evaluated on views built from what the servers showed over the run
 * (invariants/run-views.ts), on the part an event changed:
 *
 * - ElectionSafety (Raft §5.2): at most one leader per term in each Raft group. Every leader
 *   seen is remembered for the whole run, so two leaders of one term are caught even when
 *   they never lead at the same moment.
 * - StateMachineSafety (Raft §5.4.3): no two servers of a group commit different entries at
 *   one index. The first entry seen committed at each index is remembered; every server's
 *   committed entries are compared with it once, by term (not by command: see the library).
 * - AtMostOneServer (DESIGN §3): at most one group serves each shard, over each group's
 *   latest applied state: a replica that lags, or is down, cannot make a group look as if it
 *   still served a shard it froze.
 * - StaleRejected (DESIGN §3): along each group's latest applied states, the epoch of the
 *   identity it last took part in for a shard never goes down.
 * - ConfigsInOrder (DESIGN §3): every controller state's intent in flight is for current + 1.
 * - ReplicaAgreement (issue 26): two replicas of one group (controllers included) that
 *   applied the same index hold the same state digest; the first digest seen at each index
 *   is remembered, so replicas that never show it at the same moment are compared too.
 */
import { configsInOrder, explainConfigsInOrder } from '../../invariants/config-history.js';
import { committedMismatchText } from '../../invariants/raft-logs.js';
import {
  CommittedRecord,
  ElectionRecord,
  LatestGroupStates,
  type AppliedGroupState,
} from '../../invariants/run-views.js';
import {
  atMostOneServer,
  explainAtMostOneServer,
  explainStaleRejected,
  staleRejected,
} from '../../invariants/shard-servers.js';
import {
  AppliedDigestRecord,
  appliedStateDigest,
  explainReplicaAgreement,
  replicaAgreementName,
} from '../../invariants/replica-agreement.js';
import type { GroupState } from '../../spec/group/index.js';
import { lastLogIndex, snapshotIndex, termAt } from '../../spec/raft/log.js';
import type { ServerView } from '../../impl/node/api.js';
import { raftGroupOf } from './progress-checks.js';

export interface Violation {
  readonly invariant: string;
  readonly detail: string;
}

type SeenView = Pick<ServerView, 'raft' | 'appliedIndex' | 'state'>;

/** "group 100 (g100-1 at index 7)". */
const appliedName = (applied: AppliedGroupState<GroupState>) =>
  `${applied.state.gid} (${applied.replica} at index ${applied.appliedIndex})`;

export class SafetyMonitor {
  /** Raft group -> its elections. */
  private readonly elections = new Map<string, ElectionRecord>();
  /** Raft group -> its committed log as first seen (terms only). */
  private readonly committed = new Map<string, CommittedRecord<never>>();
  /** Server -> the highest committed index already compared. */
  private readonly comparedUpTo = new Map<string, number>();
  private readonly latestGroups = new LatestGroupStates<GroupState>();
  /** Raft group -> the applied state's digest first seen at each index. */
  private readonly appliedDigests = new Map<string, AppliedDigestRecord>();
  private groupsChanged = false;
  /**
   * Server -> the Raft node, applied index and applied state it showed last: states are
   * immutable, so the same three mean nothing changed and nothing needs checking again.
   */
  private readonly lastSeen = new Map<string, SeenView>();

  /** Checks the views of the live servers (a down server has none). */
  observe(views: readonly ServerView[]): Violation | null {
    this.groupsChanged = false;
    for (const view of views) {
      const seen = this.lastSeen.get(view.name);
      if (seen !== undefined && seen.raft === view.raft && seen.state === view.state &&
        seen.appliedIndex === view.appliedIndex) continue;
      this.lastSeen.set(view.name, view);
      const violation = this.checkLeader(view) ?? this.checkCommitted(view) ??
        (seen?.state === view.state && seen.appliedIndex === view.appliedIndex
          ? null : this.checkAgreement(view));
      if (violation !== null) return violation;
      const problem = view.kind === 'group' ? this.noteGroupState(view) : checkIntent(view);
      if (problem !== null) return problem;
    }
    return this.groupsChanged ? this.checkOneServerPerShard() : null;
  }

  /** The latest applied state of each group seen so far, by gid. */
  groupStates(): ReadonlyMap<number, GroupState> {
    return new Map(this.latestGroups.states().map(({ state }) => [state.gid, state]));
  }

  /** How many leaders (distinct terms) each Raft group had. */
  termsWithLeader(): number {
    let terms = 0;
    for (const record of this.elections.values()) terms += record.termsWithLeader;
    return terms;
  }

  private checkLeader(view: ServerView): Violation | null {
    if (view.raft.role !== 'leader') return null;
    const group = raftGroupOf(view);
    let record = this.elections.get(group);
    if (record === undefined) this.elections.set(group, (record = new ElectionRecord()));
    if (record.note(view.raft.currentTerm, view.name)) return null;
    return { invariant: 'ElectionSafety', detail: `${group}: ${record.explain()}` };
  }

  private checkCommitted(view: ServerView): Violation | null {
    const raft = view.raft;
    const group = raftGroupOf(view);
    let record = this.committed.get(group);
    if (record === undefined) this.committed.set(group, (record = new CommittedRecord()));
    const upTo = Math.min(raft.commitIndex, lastLogIndex(raft));
    let index = Math.max(this.comparedUpTo.get(view.name) ?? 0, snapshotIndex(raft)) + 1;
    for (; index <= upTo; index++) {
      const term = termAt(raft, index)!;
      const first = record.note(index, { term, command: null, server: view.name });
      if (first === null) continue;
      return {
        invariant: 'StateMachineSafety',
        detail: `${group}: ` + committedMismatchText(view.name, index,
          `an entry of term ${term}`, `an entry of term ${first.term} was committed before`),
      };
    }
    if (upTo > (this.comparedUpTo.get(view.name) ?? 0)) this.comparedUpTo.set(view.name, upTo);
    return null;
  }

  private checkAgreement(view: ServerView): Violation | null {
    const group = raftGroupOf(view);
    let record = this.appliedDigests.get(group);
    if (record === undefined) this.appliedDigests.set(group, (record = new AppliedDigestRecord()));
    const seen = { digest: appliedStateDigest(view.state), replica: view.name };
    const first = record.note(view.appliedIndex, seen);
    if (first === null) return null;
    return {
      invariant: replicaAgreementName,
      detail: explainReplicaAgreement(group, view.appliedIndex, seen, first),
    };
  }

  private noteGroupState(view: ServerView & { kind: 'group' }): Violation | null {
    const applied = { appliedIndex: view.appliedIndex, replica: view.name, state: view.state };
    const before = this.latestGroups.offer(applied);
    if (before === undefined) return null;
    this.groupsChanged = true;
    if (before === null || before.state === view.state) return null;
    if (staleRejected(before.state, view.state)) return null;
    return {
      invariant: 'StaleRejected',
      detail: explainStaleRejected(before.state, view.state, `group ${appliedName(applied)}`),
    };
  }

  private checkOneServerPerShard(): Violation | null {
    const latest = this.latestGroups.states();
    const states = latest.map(({ state }) => state);
    if (atMostOneServer(states)) return null;
    const named = new Map(latest.map((applied) => [applied.state, appliedName(applied)]));
    return {
      invariant: 'AtMostOneServer',
      detail: explainAtMostOneServer(states, (state) => `gid ${named.get(state)}`),
    };
  }
}

function checkIntent(view: ServerView & { kind: 'controller' }): Violation | null {
  if (configsInOrder(view.state)) return null;
  return {
    invariant: 'ConfigsInOrder',
    detail: explainConfigsInOrder(view.state, `${view.name} (at index ${view.appliedIndex})`),
  };
}
