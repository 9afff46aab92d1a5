/**
 * Check (c) of `shardkv conform`: the nodes' observations merged in one order consistent
 * with happens-before (by Lamport clock, then node name and sequence number: a send precedes
 * its delivery, a node's records keep their order; no global clock is assumed), and the
 * global invariants evaluated along it, as the simulator's SafetyMonitor does on live views:
 *
 * - ElectionSafety (Raft §5.2): at most one leader per term in each Raft group.
 * - StateMachineSafety (Raft §5.4.3): no two servers of a group apply different entries at
 *   one index (compared by term and command digest).
 * - AtMostOneServer (DESIGN §3): at most one group serves each shard, where a group's state
 *   is that of its replica of highest applied index merged so far.
 * - StaleRejected (DESIGN §3): along that latest state, the epoch of the identity a group
 *   last took part in for a shard never goes down.
 * - ConfigsInOrder (DESIGN §3): a controller's intent in flight is for current + 1.
 */
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

class GlobalState {
  /** group -> term -> its leader. */
  private readonly leaders = new Map<string, Map<number, string>>();
  /** group -> index -> the first entry applied there and who applied it. */
  private readonly applied = new Map<string, Map<number, { key: string; node: string }>>();
  /** gid -> the served shards of its replica of highest applied index. */
  private readonly latest = new Map<number, {
    appliedIndex: number; shards: Set<number>; epochs: readonly (number | null)[];
  }>();

  observe(observation: Observation): Divergence | null {
    switch (observation.kind) {
      case 'leader':
        return this.observeLeader(observation);
      case 'applied':
        return this.observeApplied(observation);
      case 'served':
        return this.observeEpochs(observation) ?? this.observeServed(observation);
      case 'intent':
        return observation.next === null || observation.next === observation.current + 1
          ? null
          : violation(observation, 'ConfigsInOrder', `configuration ${observation.next} ` +
            `is in flight while ${observation.current} is current`);
    }
  }

  private observeEpochs(observation: Extract<Observation, { kind: 'served' }>) {
    const known = this.latest.get(observation.gid);
    if (known === undefined || known.appliedIndex >= observation.appliedIndex) return null;
    for (let shard = 0; shard < observation.epochs.length; shard++) {
      // No identity counts as epoch 0, as the simulator's SafetyMonitor counts it.
      const before = known.epochs[shard] ?? 0;
      const after = observation.epochs[shard] ?? 0;
      if (after < before) {
        return violation(observation, 'StaleRejected', `group ${observation.gid} went back ` +
          `for shard ${shard} from epoch ${before} to ${after}`);
      }
    }
    return null;
  }

  private observeLeader(observation: Extract<Observation, { kind: 'leader' }>) {
    const terms = this.leaders.get(observation.group) ?? new Map<number, string>();
    this.leaders.set(observation.group, terms);
    const leader = terms.get(observation.term);
    if (leader !== undefined && leader !== observation.node) {
      return violation(observation, 'ElectionSafety',
        `${leader} and ${observation.node} both lead term ${observation.term}`);
    }
    terms.set(observation.term, observation.node);
    return null;
  }

  private observeApplied(observation: Extract<Observation, { kind: 'applied' }>) {
    const indexes = this.applied.get(observation.group) ?? new Map();
    this.applied.set(observation.group, indexes);
    const key = `term ${observation.term}, command ${observation.commandDigest}`;
    const first = indexes.get(observation.index);
    if (first !== undefined && first.key !== key) {
      return violation(observation, 'StateMachineSafety', `${first.node} and ` +
        `${observation.node} applied different entries at index ${observation.index}`,
        first.key, key);
    }
    if (first === undefined) indexes.set(observation.index, { key, node: observation.node });
    return null;
  }

  private observeServed(observation: Extract<Observation, { kind: 'served' }>) {
    const known = this.latest.get(observation.gid);
    if (known !== undefined && known.appliedIndex >= observation.appliedIndex) return null;
    this.latest.set(observation.gid, {
      appliedIndex: observation.appliedIndex, shards: new Set(observation.shards),
      epochs: observation.epochs,
    });
    for (const shard of observation.shards) {
      for (const [gid, other] of this.latest) {
        if (gid !== observation.gid && other.shards.has(shard)) {
          return violation(observation, 'AtMostOneServer',
            `groups ${gid} and ${observation.gid} both serve shard ${shard}`);
        }
      }
    }
    return null;
  }
}

export function checkGlobalInvariants(observations: readonly Observation[]): Divergence | null {
  const merged = [...observations].sort(byHappensBefore);
  const state = new GlobalState();
  for (const observation of merged) {
    const found = state.observe(observation);
    if (found !== null) return found;
  }
  return null;
}
