/**
 * The `raft` model's parameters, declared once (defineModel turns `maxTerm` into the flag
 * `--max-term` and hands `create` a typed object), and the bounds its presets fix.
 */
import { boolean, choice, integer, type TypedParams } from '../../checker/define-model.js';
import type { LivenessBudgets } from './liveness.js';
import type { RaftBounds } from './model-state.js';

export const defaultRaftBounds: RaftBounds = {
  servers: 3,
  values: 1,
  maxTerm: 2,
  maxLog: 1,
  maxMsgs: 1,
  maxRestarts: 1,
  maxCompactions: 1,
  maxReads: 1,
};

/** The bounds a preset fixes: all but the servers and the values. */
export type PresetBounds = Omit<RaftBounds, 'servers' | 'values'>;
export const presetBoundNames: readonly (keyof PresetBounds)[] =
  ['maxTerm', 'maxLog', 'maxMsgs', 'maxRestarts', 'maxCompactions', 'maxReads'];

/**
 * `--preset deep`: two copies in flight, so deliveries reorder and a late duplicate arrives
 * after newer messages, with two terms and two entries; no restart, compaction or read (with
 * them the space passes two million states up to renaming), counted up to server renaming.
 */
export const deepRaftBounds: PresetBounds =
  { maxTerm: 2, maxLog: 2, maxMsgs: 2, maxRestarts: 0, maxCompactions: 0, maxReads: 0 };

/**
 * `--preset stale-replies`: three terms, so one server can lead, be deposed and lead again
 * while a reply of its first term is still in flight, with two copies in flight and two
 * entries; no restart, compaction or read, counted up to server renaming.
 */
export const staleRepliesRaftBounds: PresetBounds =
  { maxTerm: 3, maxLog: 2, maxMsgs: 2, maxRestarts: 0, maxCompactions: 0, maxReads: 0 };

/**
 * `--preset liveness` (liveness.ts): LeaderElected and ValueCommitted under weak fairness,
 * with three terms (a leader may be deposed and another elected), room for the no-op and a
 * value, one copy in flight and one crash + restart; one drop and one free election timeout.
 */
export const livenessRaftBounds: PresetBounds =
  { maxTerm: 3, maxLog: 2, maxMsgs: 1, maxRestarts: 1, maxCompactions: 0, maxReads: 0 };
export const livenessBudgets: LivenessBudgets = { maxDrops: 1, maxTimeouts: 1 };

/**
 * `--preset liveness-9.6` (liveness.ts): the liveness properties with PreVote and
 * CheckQuorum on, plus LeaderStepsDown: two terms (a leader, then one elected after it is
 * isolated), room for both no-ops, one copy in flight, no crash; no drop, one free election
 * timeout and one isolation.
 */
export const quorumLivenessRaftBounds: PresetBounds =
  { maxTerm: 2, maxLog: 1, maxMsgs: 1, maxRestarts: 0, maxCompactions: 0, maxReads: 0 };
export const quorumLivenessBudgets: LivenessBudgets =
  { maxDrops: 0, maxTimeouts: 1, maxIsolations: 1 };

const bound = (description: string, name: keyof RaftBounds, min: number, max: number) =>
  integer({ description, default: defaultRaftBounds[name], min, max });

export const raftParams = {
  servers: bound('servers in the cluster', 'servers', 1, 5),
  values: bound('client values', 'values', 1, 4),
  maxTerm: bound('state constraint: currentTerm <= N', 'maxTerm', 1, 20),
  maxLog: bound('state constraint: log length (last index) <= N', 'maxLog', 0, 6),
  maxMsgs: bound('state constraint: copies in flight <= N', 'maxMsgs', 0, 8),
  maxRestarts: bound('crash + restarts in a behaviour', 'maxRestarts', 0, 8),
  maxCompactions: bound('log compactions in a behaviour', 'maxCompactions', 0, 8),
  maxReads: bound('ReadIndex requests in a behaviour', 'maxReads', 0, 8),
  preVote: boolean({
    description: 'PreVote (dissertation §9.6): a server raises its term only if it could win',
    default: false,
  }),
  checkQuorum: boolean({
    description: 'CheckQuorum (§9.6): leader lease; a leader without a quorum steps down',
    default: false,
  }),
  inflightWindow: integer({
    description:
      'flow control (spec/raft/progress.ts): appends in flight per follower while streaming; ' +
      "0: none, every heartbeat resends from nextIndex (raft.tla's behaviour)",
    default: 0,
    min: 0,
    max: 4,
  }),
  symmetry: boolean({ description: 'count states up to renaming of servers', default: false }),
  preset: choice({
    description:
      "raft.tla: Ongaro's raft.tla exactly (it has no restart, compaction or read bound and " +
      'refuses those flags); deep: two messages in flight, two terms, two entries, up to ' +
      'server renaming (it sets those bounds and refuses their flags); stale-replies: deep ' +
      'with three terms (a leader deposed and elected again meets its old replies); liveness: ' +
      'LeaderElected and ValueCommitted under weak fairness (docs/models.md, Raft); ' +
      'liveness-9.6: the same with PreVote and CheckQuorum, and LeaderStepsDown for an ' +
      'isolated leader',
    default: 'none',
    choices: ['none', 'raft.tla', 'deep', 'stale-replies', 'liveness', 'liveness-9.6'],
  }),
  refines: choice({
    description:
      'raft.tla: also check that every step maps onto raft.tla steps (invariant ' +
      'RefinesRaftTla; no compaction, PreVote or CheckQuorum)',
    default: 'none',
    choices: ['none', 'raft.tla'],
  }),
};

export type RaftParams = TypedParams<typeof raftParams>;

/** The state constraints and budgets among the parameters. */
export function boundsOf(params: RaftParams): RaftBounds {
  return {
    servers: params.servers,
    values: params.values,
    maxTerm: params.maxTerm,
    maxLog: params.maxLog,
    maxMsgs: params.maxMsgs,
    maxRestarts: params.maxRestarts,
    maxCompactions: params.maxCompactions,
    maxReads: params.maxReads,
  };
}
