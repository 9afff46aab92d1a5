/**
 * The `raft` model's definition for the registry: its bounds, invariants and known bugs, and
 * the `--preset raft.tla` calibration (tla-preset.ts).
 */
import type { ModelDefinition, Params } from '../../checker/model.js';
import { UsageError } from '../../checker/params.js';
import { flagName } from '../../checker/define-model.js';
import { raftInvariantNames } from './invariants.js';
import type { RaftBounds } from './model-state.js';
import { createRaftModel } from './model.js';
import { createRaftLivenessModel, type LivenessBudgets } from './liveness.js';
import { createRefinementModel, refinementRefusal } from './refinement-model.js';
import { createTlaModel } from './tla-preset.js';
import { maximumLogLength, maximumServers, maximumTerm, maximumValues } from './tla-state.js';
import type { RaftBugs, RaftOptions } from '../../spec/raft/types.js';

export { createRaftModel } from './model.js';
export { createTlaModel } from './tla-preset.js';

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

/**
 * `--preset deep`: two copies in flight, so deliveries reorder and a late duplicate arrives
 * after newer messages, with two terms and two entries; no restart, compaction or read (with
 * them the space passes two million states up to renaming), counted up to server renaming.
 */
export const deepRaftBounds: Pick<
  RaftBounds,
  'maxTerm' | 'maxLog' | 'maxMsgs' | 'maxRestarts' | 'maxCompactions' | 'maxReads'
> = { maxTerm: 2, maxLog: 2, maxMsgs: 2, maxRestarts: 0, maxCompactions: 0, maxReads: 0 };

/**
 * `--preset liveness` (liveness.ts): LeaderElected and ValueCommitted under weak fairness,
 * with three terms (a leader may be deposed and another elected), room for the no-op and a
 * value, one copy in flight and one crash + restart; one drop and one free election timeout.
 */
export const livenessRaftBounds: Pick<
  RaftBounds,
  'maxTerm' | 'maxLog' | 'maxMsgs' | 'maxRestarts' | 'maxCompactions' | 'maxReads'
> = { maxTerm: 3, maxLog: 2, maxMsgs: 1, maxRestarts: 1, maxCompactions: 0, maxReads: 0 };
export const livenessBudgets: LivenessBudgets = { maxDrops: 1, maxTimeouts: 1 };

/** Each known bug's switch, by its name in `shardkv bugs` (the scenario tests use them too). */
export const raftBugSwitches: Readonly<Record<string, RaftBugs>> = {
  'commit-prev-term': { commitPrevTerm: true },
  'vote-ignores-log': { voteIgnoresLog: true },
  'forget-vote-on-restart': { forgetVoteOnRestart: true },
  'read-without-quorum': { readWithoutQuorum: true },
  'prevote-raises-term': { preVoteRaisesTerm: true },
  'vote-during-lease': { voteDuringLease: true },
  'truncate-on-every-append': { truncateOnEveryAppend: true },
  'snapshot-rollback': { snapshotRollback: true },
  'follower-skips-apply': { followerSkipsApply: true },
};

function boundsOf(params: Params): RaftBounds {
  return {
    servers: params['servers'] as number,
    values: params['values'] as number,
    maxTerm: params['max-term'] as number,
    maxLog: params['max-log'] as number,
    maxMsgs: params['max-msgs'] as number,
    maxRestarts: params['max-restarts'] as number,
    maxCompactions: params['max-compactions'] as number,
    maxReads: params['max-reads'] as number,
  };
}

/** The node options a model's parameters and bug name select. */
export function raftOptionsOf(params: Params, bug: string | undefined): RaftOptions {
  return {
    preVote: params['pre-vote'] === true,
    checkQuorum: params['check-quorum'] === true,
    ...(bug === undefined ? {} : { bugs: raftBugSwitches[bug] }),
  };
}

function createPreset(params: Params, bounds: RaftBounds, bug: string | undefined) {
  const symmetry = params['symmetry'] === true;
  if (bug !== undefined || symmetry)
    throw new UsageError('--preset raft.tla takes no --bug and no --symmetry');
  if (params['pre-vote'] === true || params['check-quorum'] === true)
    throw new UsageError('--preset raft.tla has neither --pre-vote nor --check-quorum');
  // raft.tla restarts without bound and never compacts: these bounds would be silently ignored.
  const ignored = [
    ['max-restarts', bounds.maxRestarts, defaultRaftBounds.maxRestarts],
    ['max-compactions', bounds.maxCompactions, defaultRaftBounds.maxCompactions],
    ['max-reads', bounds.maxReads, defaultRaftBounds.maxReads],
  ] as const;
  for (const [name, value, fallback] of ignored) {
    if (value !== fallback) throw new UsageError(`--preset raft.tla has no --${name} bound`);
  }
  const limits = [
    ['servers', bounds.servers, maximumServers],
    ['values', bounds.values, maximumValues],
    ['max-term', bounds.maxTerm, maximumTerm],
    ['max-log', bounds.maxLog, maximumLogLength],
  ] as const;
  for (const [name, value, maximum] of limits) {
    if (value > maximum)
      throw new UsageError(`--preset raft.tla supports --${name} up to ${maximum}, got ${value}`);
  }
  return createTlaModel(bounds);
}

/** A preset's bounds; a bound flag it sets is refused rather than silently ignored. */
function presetBounds(
  preset: 'deep' | 'liveness',
  params: Params,
  bounds: RaftBounds,
  fixedBounds: Partial<RaftBounds>,
): RaftBounds {
  const fixed = [
    ['max-term', bounds.maxTerm, defaultRaftBounds.maxTerm],
    ['max-log', bounds.maxLog, defaultRaftBounds.maxLog],
    ['max-msgs', bounds.maxMsgs, defaultRaftBounds.maxMsgs],
    ['max-restarts', bounds.maxRestarts, defaultRaftBounds.maxRestarts],
    ['max-compactions', bounds.maxCompactions, defaultRaftBounds.maxCompactions],
    ['max-reads', bounds.maxReads, defaultRaftBounds.maxReads],
  ] as const;
  for (const [name, value, fallback] of fixed) {
    if (value !== fallback) throw new UsageError(`--preset ${preset} sets --${name} itself`);
  }
  if (params['pre-vote'] === true || params['check-quorum'] === true)
    throw new UsageError(`--preset ${preset} has neither --pre-vote nor --check-quorum`);
  if (preset === 'liveness' && params['symmetry'] === true)
    throw new UsageError('--preset liveness has no --symmetry (fairness names servers)');
  return { ...bounds, ...fixedBounds };
}

function createRefinement(params: Params, bounds: RaftBounds, options: RaftOptions) {
  if (params['preset'] !== 'none') throw new UsageError('--refines takes no --preset');
  const refusal = refinementRefusal(bounds, options);
  if (refusal !== null) throw new UsageError(`--refines raft.tla: ${refusal}`);
  return createRefinementModel(bounds, options, params['symmetry'] === true) as never;
}

export const raftDefinition: ModelDefinition = {
  name: 'raft',
  description:
    'Raft (paper §5, §7): election, replication, crash + restart, log compaction, over a ' +
    "lossy duplicating network bag. --preset raft.tla: Ongaro's raft.tla, for calibration with TLC",
  params: [
    {
      name: 'servers',
      description: 'servers in the cluster',
      default: defaultRaftBounds.servers,
      kind: 'integer',
      min: 1,
      max: 5,
    },
    {
      name: 'values',
      description: 'client values',
      default: defaultRaftBounds.values,
      kind: 'integer',
      min: 1,
      max: 4,
    },
    {
      name: 'max-term',
      description: 'state constraint: currentTerm <= N',
      default: defaultRaftBounds.maxTerm,
      kind: 'integer',
      min: 1,
      max: 20,
    },
    {
      name: 'max-log',
      description: 'state constraint: log length (last index) <= N',
      default: defaultRaftBounds.maxLog,
      kind: 'integer',
      min: 0,
      max: 6,
    },
    {
      name: 'max-msgs',
      description: 'state constraint: copies in flight <= N',
      default: defaultRaftBounds.maxMsgs,
      kind: 'integer',
      min: 0,
      max: 8,
    },
    {
      name: 'max-restarts',
      description: 'crash + restarts in a behaviour',
      default: defaultRaftBounds.maxRestarts,
      kind: 'integer',
      min: 0,
      max: 8,
    },
    {
      name: 'max-compactions',
      description: 'log compactions in a behaviour',
      default: defaultRaftBounds.maxCompactions,
      kind: 'integer',
      min: 0,
      max: 8,
    },
    {
      name: 'max-reads',
      description: 'ReadIndex requests in a behaviour',
      default: defaultRaftBounds.maxReads,
      kind: 'integer',
      min: 0,
      max: 8,
    },
    {
      name: 'pre-vote',
      description: 'PreVote (dissertation §9.6): a server raises its term only if it could win',
      default: false,
      kind: 'boolean',
    },
    {
      name: 'check-quorum',
      description: 'CheckQuorum (§9.6): leader lease; a leader without a quorum steps down',
      default: false,
      kind: 'boolean',
    },
    {
      name: 'symmetry',
      description: 'count states up to renaming of servers',
      default: false,
      kind: 'boolean',
    },
    {
      name: 'preset',
      description:
        "raft.tla: Ongaro's raft.tla exactly (it has no restart, compaction or read bound and " +
        'refuses those flags); deep: two messages in flight, two terms, two entries, up to ' +
        'server renaming (it sets those bounds and refuses their flags); liveness: ' +
        'LeaderElected and ValueCommitted under weak fairness (README, Raft)',
      default: 'none',
      kind: 'choice',
      choices: ['none', 'raft.tla', 'deep', 'liveness'],
    },
    {
      name: 'refines',
      description:
        'raft.tla: also check that every step maps onto raft.tla steps (invariant ' +
        'RefinesRaftTla; no compaction, PreVote or CheckQuorum)',
      default: 'none',
      kind: 'choice',
      choices: ['none', 'raft.tla'],
    },
  ],
  invariants: raftInvariantNames,
  bugs: [
    {
      name: 'commit-prev-term',
      description:
        'a leader commits an entry of an earlier term by counting replicas (Raft paper, Figure 8)',
      breaks: ['StateMachineSafety', 'LeaderCompleteness'],
      bounds: {
        'max-term': 4,
        'max-log': 2,
        'max-restarts': 0,
        'max-compactions': 0,
        'max-reads': 0,
        symmetry: true,
      },
    },
    {
      name: 'vote-ignores-log',
      description:
        'a server grants its vote without checking that the candidate log is up to date (§5.4.1)',
      breaks: ['LeaderCompleteness'],
      bounds: {
        'max-term': 2,
        'max-log': 1,
        'max-restarts': 0,
        'max-compactions': 0,
        'max-reads': 0,
      },
    },
    {
      name: 'forget-vote-on-restart',
      description: 'votedFor is not persisted, so a restarted server can vote twice in one term',
      breaks: ['ElectionSafety'],
      bounds: {
        'max-term': 1,
        'max-log': 1,
        'max-restarts': 1,
        'max-compactions': 0,
        'max-reads': 0,
      },
    },
    {
      name: 'read-without-quorum',
      description:
        'a leader serves a ReadIndex read without a heartbeat round confirming it still leads ' +
        '(dissertation §6.4): a deposed leader answers with a stale index',
      breaks: ['LinearizableReads'],
      bounds: { 'max-term': 2, 'max-log': 2, 'max-restarts': 0, 'max-compactions': 0 },
    },
    {
      name: 'prevote-raises-term',
      description:
        'with PreVote, a pre-candidate raises its term before a quorum agreed (§9.6): an ' +
        'isolated server comes back with a higher term and deposes the leader',
      breaks: ['NoTermRaisedAlone'],
      bounds: { 'pre-vote': true, 'max-restarts': 0, 'max-compactions': 0, 'max-reads': 0 },
    },
    {
      name: 'vote-during-lease',
      description:
        'with CheckQuorum, a server that hears from a live leader still heeds a higher-term ' +
        'vote request (§9.6): a returning server deposes a healthy leader',
      breaks: ['LeaseRespected'],
      bounds: { 'check-quorum': true, 'max-restarts': 0, 'max-compactions': 0, 'max-reads': 0 },
    },
    {
      name: 'truncate-on-every-append',
      description:
        'a follower cuts its log after the entries of every AppendEntries, even where they ' +
        'match (§5.3 truncates only at a conflict): a late duplicate erases a committed entry',
      breaks: ['CommittedDurable'],
      bounds: {
        'max-term': 1,
        'max-log': 2,
        'max-msgs': 2,
        'max-restarts': 0,
        'max-compactions': 0,
        'max-reads': 0,
      },
    },
    {
      name: 'snapshot-rollback',
      description:
        'a follower installs a snapshot older than its commit index (§7), so its commit ' +
        'index and its application go back and entries are applied again',
      breaks: ['CommitMonotonic'],
      bounds: {
        'max-term': 1,
        'max-log': 2,
        'max-msgs': 2,
        'max-restarts': 0,
        'max-reads': 0,
        symmetry: true,
      },
    },
    {
      name: 'follower-skips-apply',
      description:
        'a follower advances its commit index without handing the entries to its application',
      breaks: ['AppliedUpToCommit'],
      bounds: {
        'max-term': 1,
        'max-log': 1,
        'max-restarts': 0,
        'max-compactions': 0,
        'max-reads': 0,
      },
    },
  ],
  create: (params, bug) => {
    const bounds = boundsOf(params);
    const symmetry = params['symmetry'] === true;
    if (params['preset'] === 'raft.tla') return createPreset(params, bounds, bug) as never;
    const options = raftOptionsOf(params, bug);
    if (params['refines'] === 'raft.tla') return createRefinement(params, bounds, options);
    if (params['preset'] === 'deep') {
      const fixed = presetBounds('deep', params, bounds, deepRaftBounds);
      return createRaftModel(fixed, options, true) as never;
    }
    if (params['preset'] === 'liveness') {
      const fixed = presetBounds('liveness', params, bounds, livenessRaftBounds);
      return createRaftLivenessModel(fixed, livenessBudgets, options) as never;
    }
    return createRaftModel(bounds, options, symmetry) as never;
  },
  boundsInUse: (params) => {
    if (params['preset'] === 'raft.tla') {
      // raft.tla restarts without bound, never compacts and serves no reads.
      const used = ['servers', 'values', 'max-term', 'max-log', 'max-msgs', 'preset'];
      return Object.fromEntries(used.map((name) => [name, params[name]!]));
    }
    const preset = params['preset'];
    if (preset !== 'deep' && preset !== 'liveness') return params;
    const fixed: Record<string, number> = {};
    const presetBoundsInUse = preset === 'deep' ? deepRaftBounds : livenessRaftBounds;
    for (const [name, value] of Object.entries(presetBoundsInUse)) fixed[flagName(name)] = value;
    // The deep preset explores every renaming as one state; liveness names servers in fairness.
    return { ...params, ...fixed, symmetry: preset === 'deep' };
  },
};
