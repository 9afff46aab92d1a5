/**
 * Check (c) of `shardkv conform`: the nodes' observations in one order consistent with
 * happens-before (by Lamport clock, then node name and sequence number: a send precedes its
 * delivery, a node's records keep their order; no global clock is assumed), as the records'
 * merge (lamport-merge.ts) hands them over, and the
 * library's global invariants (invariants/) evaluated along it, on views built from the
 * observations merged so far (invariants/run-views.ts), as the simulator's monitor builds
 * them from live servers:
 *
 * - ElectionSafety (Raft §5.2): at most one leader per term in each Raft group.
 * - StateMachineSafety (Raft §5.4.3): no two servers of a group apply different entries at
 *   one index (compared by term and command digest).
 * - AtMostOneServer (DESIGN §3): at most one group serves each shard, where a group's state
 *   is that of its replica of highest applied index merged so far.
 * - StaleRejected (DESIGN §3): along that latest state, the epoch of the identity a group
 *   last took part in for a shard never goes down.
 * - ConfigsInOrder (DESIGN §3): a controller's intent in flight is for current + 1.
 * - ReplicaAgreement (issue 26): two replicas of one group (controllers too) whose replays
 *   reached the same applied index hold the same state digest.
 */
import { configsInOrder, explainConfigsInOrder } from '../../invariants/config-history.js';
import { committedMismatchText } from '../../invariants/raft-logs.js';
import {
  CommittedRecord,
  ElectionRecord,
  LatestGroupStates,
  type SeenEntry,
} from '../../invariants/run-views.js';
import {
  atMostOneServer,
  explainAtMostOneServer,
  explainStaleRejected,
  staleRejected,
} from '../../invariants/shard-servers.js';
import type { GroupView } from '../../invariants/shard-view.js';
import {
  AppliedDigestRecord, explainReplicaAgreement, replicaAgreementName,
} from '../../invariants/replica-agreement.js';
import { shown, type Divergence } from './divergence.js';
import type { Observation } from './observation.js';

function byHappensBefore(a: Observation, b: Observation): number {
  if (a.lamport !== b.lamport) return a.lamport - b.lamport;
  if (a.node !== b.node) return a.node < b.node ? -1 : 1;
  return a.seq - b.seq;
}

function violation(observation: Observation, invariant: string, what: string,
  expected?: string, recorded?: string): Divergence {
  return {
    check: 'invariant', what: `${invariant}: ${what}`, node: observation.node,
    step: observation.seq, lamport: observation.lamport,
    ...(expected === undefined ? {} : { expected: shown(expected) }),
    ...(recorded === undefined ? {} : { recorded: shown(recorded) }),
  };
}

/** "(term 2, command 9f3a...)": how conform names an applied entry. */
const entryText = (entry: SeenEntry<string>) => `(term ${entry.term}, command ${entry.command})`;

class GlobalState {
  /** group -> its elections. */
  private readonly elections = new Map<string, ElectionRecord>();
  /** group -> the entry first applied at each index (term and command digest). */
  private readonly applied = new Map<string, CommittedRecord<string>>();
  /** gid -> the shard records of its replica of highest applied index. */
  private readonly latest = new LatestGroupStates<GroupView>();
  /** group -> the replayed state's digest first reached at each applied index. */
  private readonly states = new Map<string, AppliedDigestRecord>();

  observe(observation: Observation): Divergence | null {
    switch (observation.kind) {
      case 'leader':
        return this.observeLeader(observation);
      case 'applied':
        return this.observeApplied(observation);
      case 'served':
        return this.observeServed(observation);
      case 'state':
        return this.observeState(observation);
      case 'intent': {
        const intent = { current: observation.current,
          next: observation.next === null ? null : { num: observation.next } };
        return configsInOrder(intent) ? null
          : violation(observation, 'ConfigsInOrder', explainConfigsInOrder(intent,
            observation.node));
      }
    }
  }

  /** No replica of `group` is seen below `index` again (compaction-floors.ts). */
  forgetBelow(group: string, index: number): void {
    this.applied.get(group)?.forgetBelow(index);
    this.states.get(group)?.forgetBelow(index);
  }

  /** The applied entries and state digests kept, and the sightings not compared. */
  retention(): { retained: number; uncompared: number } {
    let retained = 0;
    let uncompared = 0;
    for (const record of [...this.applied.values(), ...this.states.values()]) {
      retained += record.retained;
      uncompared += record.uncompared;
    }
    return { retained, uncompared };
  }

  private observeLeader(observation: Extract<Observation, { kind: 'leader' }>) {
    let record = this.elections.get(observation.group);
    if (record === undefined) {
      this.elections.set(observation.group, (record = new ElectionRecord()));
    }
    if (record.note(observation.term, observation.node)) return null;
    return violation(observation, 'ElectionSafety', record.explain());
  }

  private observeApplied(observation: Extract<Observation, { kind: 'applied' }>) {
    let record = this.applied.get(observation.group);
    if (record === undefined) {
      this.applied.set(observation.group, (record = new CommittedRecord()));
    }
    const entry = { term: observation.term, command: observation.commandDigest,
      server: observation.node };
    const first = record.note(observation.index, entry);
    if (first === null) return null;
    const what = committedMismatchText(observation.node, observation.index, entryText(entry),
      `${entryText(first)} was applied first, by ${first.server}`);
    return violation(observation, 'StateMachineSafety', what, entryText(first), entryText(entry));
  }

  private observeState(observation: Extract<Observation, { kind: 'state' }>) {
    let record = this.states.get(observation.group);
    if (record === undefined) this.states.set(observation.group, (record = new AppliedDigestRecord()));
    const seen = { digest: observation.digest, replica: observation.node };
    const first = record.note(observation.index, seen);
    if (first === null) return null;
    return violation(observation, replicaAgreementName,
      explainReplicaAgreement(observation.group, observation.index, seen, first),
      first.digest, seen.digest);
  }

  private observeServed(observation: Extract<Observation, { kind: 'served' }>) {
    const after = { gid: observation.gid, shards: observation.shards };
    const before = this.latest.offer({ appliedIndex: observation.appliedIndex,
      replica: observation.node, state: after });
    if (before === undefined) return null;
    if (before !== null && !staleRejected(before.state, after)) {
      return violation(observation, 'StaleRejected', explainStaleRejected(before.state, after));
    }
    const groups = this.latest.states().map(({ state }) => state);
    return atMostOneServer(groups) ? null
      : violation(observation, 'AtMostOneServer', explainAtMostOneServer(groups));
  }
}

/**
 * The global invariants fed observations in the merged order as the nodes' records are
 * replayed (conform.ts): the first violation is kept and later observations are ignored.
 */
export class GlobalInvariants {
  divergence: Divergence | null = null;
  private readonly state = new GlobalState();

  readonly observe = (observation: Observation): void => {
    if (this.divergence === null) this.divergence = this.state.observe(observation);
  };

  forgetBelow(group: string, index: number): void {
    this.state.forgetBelow(group, index);
  }

  retention(): { retained: number; uncompared: number } {
    return this.state.retention();
  }
}

/** Observations in any order, merged by happens-before and checked. */
export function checkGlobalInvariants(observations: readonly Observation[]): Divergence | null {
  const invariants = new GlobalInvariants();
  for (const observation of [...observations].sort(byHappensBefore)) {
    invariants.observe(observation);
  }
  return invariants.divergence;
}
