/**
 * The `raft` model's definition for the registry: its bounds, invariants and known bugs, and
 * the `--preset raft.tla` calibration (tla-preset.ts).
 */
import type { ModelDefinition, Params } from '../../checker/model.js';
import { UsageError } from '../../checker/params.js';
import { raftInvariantNames } from './invariants.js';
import type { RaftBounds } from './model-state.js';
import { createRaftModel } from './model.js';
import { createTlaModel } from './tla-preset.js';
import { maximumLogLength, maximumServers, maximumTerm, maximumValues } from './tla-state.js';
import type { RaftOptions } from './types.js';

export { createRaftModel } from './model.js';
export { createTlaModel } from './tla-preset.js';
export * from './compaction.js';
/** The name for the follower side of InstallSnapshot. */
export { handleInstallSnapshotRequest as handleInstallSnapshot } from './compaction.js';
export * from './election.js';
export * from './replication.js';
export { initialServer, receive, restart } from './server.js';
export type * from './types.js';

export const defaultRaftBounds: RaftBounds = {
  servers: 3,
  values: 1,
  maxTerm: 2,
  maxLog: 1,
  maxMsgs: 1,
  maxRestarts: 1,
  maxCompactions: 1,
};

/** Each known bug's switch, by its name in `shardkv bugs` (the scenario tests use them too). */
export const raftBugOptions: Readonly<Record<string, RaftOptions>> = {
  'commit-prev-term': { commitPrevTerm: true },
  'vote-ignores-log': { voteIgnoresLog: true },
  'forget-vote-on-restart': { forgetVoteOnRestart: true },
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
  };
}

function createPreset(bounds: RaftBounds, bug: string | undefined, symmetry: boolean) {
  if (bug !== undefined || symmetry)
    throw new UsageError('--preset raft.tla takes no --bug and no --symmetry');
  // raft.tla restarts without bound and never compacts: these bounds would be silently ignored.
  const ignored = [
    ['max-restarts', bounds.maxRestarts, defaultRaftBounds.maxRestarts],
    ['max-compactions', bounds.maxCompactions, defaultRaftBounds.maxCompactions],
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
      name: 'symmetry',
      description: 'count states up to renaming of servers',
      default: false,
      kind: 'boolean',
    },
    {
      name: 'preset',
      description: "raft.tla: Ongaro's raft.tla exactly (ignores max-restarts, max-compactions)",
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
        'max-log': 1,
        'max-restarts': 0,
        'max-compactions': 0,
        symmetry: true,
      },
    },
    {
      name: 'vote-ignores-log',
      description:
        'a server grants its vote without checking that the candidate log is up to date (§5.4.1)',
      breaks: ['LeaderCompleteness'],
      bounds: { 'max-term': 2, 'max-log': 1, 'max-restarts': 0, 'max-compactions': 0 },
    },
    {
      name: 'forget-vote-on-restart',
      description: 'votedFor is not persisted, so a restarted server can vote twice in one term',
      breaks: ['ElectionSafety'],
      bounds: { 'max-term': 1, 'max-log': 0, 'max-restarts': 1, 'max-compactions': 0 },
    },
  ],
  create: (params, bug) => {
    const bounds = boundsOf(params);
    const symmetry = params['symmetry'] === true;
    if (params['preset'] === 'raft.tla') return createPreset(bounds, bug, symmetry) as never;
    return createRaftModel(bounds, bug === undefined ? {} : raftBugOptions[bug], symmetry) as never;
  },
};
