/**
 * The `raft` model's definition for the registry: its bounds and presets (declared once,
 * typed through defineModel), the known bugs of spec/raft/bugs.ts, and the
 * `--preset raft.tla` calibration (tla-preset.ts).
 */
import { UsageError } from '../../checker/params.js';
import { defineModel, flagName, type ModelSpec } from '../../checker/define-model.js';
import { bugSwitches } from '../../spec/bug-catalog.js';
import { raftBugNames, raftBugs, type RaftBugName } from '../../spec/raft/bugs.js';
import type { RaftOptions } from '../../spec/raft/types.js';
import type { RaftBounds } from './model-state.js';
import { createRaftModel } from './model.js';
import { createRaftLivenessModel } from './liveness.js';
import {
  boundsOf,
  deepRaftBounds,
  defaultRaftBounds,
  livenessBudgets,
  livenessRaftBounds,
  quorumLivenessBudgets,
  quorumLivenessRaftBounds,
  staleRepliesRaftBounds,
  presetBoundNames,
  raftParams,
  type PresetBounds,
  type RaftParams,
} from './params.js';
import { createRefinementModel, refinementRefusal } from './refinement-model.js';
import { createTlaModel } from './tla-preset.js';
import { maximumLogLength, maximumServers, maximumTerm, maximumValues } from './tla-state.js';

export { createRaftModel } from './model.js';
export { createTlaModel } from './tla-preset.js';

export {
  deepRaftBounds,
  defaultRaftBounds,
  livenessBudgets,
  livenessRaftBounds,
  quorumLivenessBudgets,
  quorumLivenessRaftBounds,
  staleRepliesRaftBounds,
} from './params.js';

/** The node options the parameters and the bug select. */
function raftOptionsOf(params: RaftParams, bug: RaftBugName | undefined): RaftOptions {
  return {
    preVote: params.preVote,
    checkQuorum: params.checkQuorum,
    ...(params.inflightWindow === 0 ? {} : { maxInflightAppends: params.inflightWindow }),
    ...(bug === undefined ? {} : { bugs: bugSwitches(raftBugNames, [bug]) }),
  };
}

/** `--preset raft.tla`, refusing what raft.tla has not (rather than ignoring it silently). */
function createPreset(params: RaftParams, bug: RaftBugName | undefined) {
  if (bug !== undefined || params.symmetry)
    throw new UsageError('--preset raft.tla takes no --bug and no --symmetry');
  if (params.preVote || params.checkQuorum)
    throw new UsageError('--preset raft.tla has neither --pre-vote nor --check-quorum');
  if (params.inflightWindow !== 0)
    throw new UsageError('--preset raft.tla has no --inflight-window (it resends every time)');
  // raft.tla restarts without bound and never compacts: these bounds would be silently ignored.
  for (const name of ['maxRestarts', 'maxCompactions', 'maxReads'] as const) {
    if (params[name] !== defaultRaftBounds[name])
      throw new UsageError(`--preset raft.tla has no --${flagName(name)} bound`);
  }
  const limits = [
    ['servers', maximumServers],
    ['values', maximumValues],
    ['maxTerm', maximumTerm],
    ['maxLog', maximumLogLength],
  ] as const;
  for (const [name, maximum] of limits) {
    const value = params[name];
    if (value > maximum) {
      throw new UsageError(
        `--preset raft.tla supports --${flagName(name)} up to ${maximum}, got ${value}`);
    }
  }
  return createTlaModel(boundsOf(params));
}

/** A preset's bounds; a bound flag it sets is refused rather than silently ignored. */
function presetBounds(
  preset: 'deep' | 'stale-replies' | 'liveness' | 'liveness-9.6',
  params: RaftParams,
  fixedBounds: PresetBounds,
): RaftBounds {
  for (const name of presetBoundNames) {
    if (params[name] !== defaultRaftBounds[name])
      throw new UsageError(`--preset ${preset} sets --${flagName(name)} itself`);
  }
  if (preset !== 'liveness-9.6' && (params.preVote || params.checkQuorum))
    throw new UsageError(`--preset ${preset} has neither --pre-vote nor --check-quorum`);
  if (preset !== 'deep' && params.symmetry)
    throw new UsageError('--preset liveness has no --symmetry (fairness names servers)');
  return { ...boundsOf(params), ...fixedBounds };
}

function createRefinement(params: RaftParams, options: RaftOptions) {
  if (params.preset !== 'none') throw new UsageError('--refines takes no --preset');
  const bounds = boundsOf(params);
  const refusal = refinementRefusal(bounds, options);
  if (refusal !== null) throw new UsageError(`--refines raft.tla: ${refusal}`);
  return createRefinementModel(bounds, options, params.symmetry);
}

/** The model the parameters select: a preset, the refinement check, or the plain model. */
function createModel(
  params: RaftParams,
  bug: RaftBugName | undefined,
): ModelSpec<unknown, unknown> {
  if (params.preset === 'raft.tla') return createPreset(params, bug);
  const options = raftOptionsOf(params, bug);
  if (params.refines === 'raft.tla') return createRefinement(params, options);
  if (params.preset === 'deep') {
    return createRaftModel(presetBounds('deep', params, deepRaftBounds), options, true);
  }
  if (params.preset === 'stale-replies') {
    const bounds = presetBounds('stale-replies', params, staleRepliesRaftBounds);
    return createRaftModel(bounds, options, true);
  }
  if (params.preset === 'liveness') {
    const bounds = presetBounds('liveness', params, livenessRaftBounds);
    return createRaftLivenessModel(bounds, livenessBudgets, options);
  }
  if (params.preset === 'liveness-9.6') {
    const bounds = presetBounds('liveness-9.6', params, quorumLivenessRaftBounds);
    return createRaftLivenessModel(bounds, quorumLivenessBudgets,
      { ...options, preVote: true, checkQuorum: true });
  }
  return createRaftModel(boundsOf(params), options, params.symmetry);
}

/** The bounds a preset runs with, for the `Checking ...` header. */
function presetBoundsInUse(params: RaftParams): Partial<RaftParams> {
  if (params.preset === 'raft.tla') {
    // raft.tla restarts without bound, never compacts and serves no reads.
    const { servers, values, maxTerm, maxLog, maxMsgs, preset } = params;
    return { servers, values, maxTerm, maxLog, maxMsgs, preset };
  }
  // The deep preset explores every renaming as one state; liveness names servers in fairness.
  if (params.preset === 'deep') return { ...params, ...deepRaftBounds, symmetry: true };
  if (params.preset === 'stale-replies') {
    return { ...params, ...staleRepliesRaftBounds, symmetry: true };
  }
  if (params.preset === 'liveness') return { ...params, ...livenessRaftBounds, symmetry: false };
  if (params.preset === 'liveness-9.6') {
    return { ...params, ...quorumLivenessRaftBounds, symmetry: false, preVote: true,
      checkQuorum: true };
  }
  return params;
}

/** ... without the flow control's window when it is off (an option, as --pre-vote is). */
function boundsInUse(params: RaftParams): Partial<RaftParams> {
  const { inflightWindow, ...bounds } = presetBoundsInUse(params);
  const off = inflightWindow === 0 || inflightWindow === undefined;
  return off ? bounds : { ...bounds, inflightWindow };
}

export const raftDefinition = defineModel({
  name: 'raft',
  description:
    'Raft (paper §5, §7): election, replication, crash + restart, log compaction, over a ' +
    "lossy duplicating network bag. --preset raft.tla: Ongaro's raft.tla, for calibration with TLC",
  params: raftParams,
  bugs: raftBugs,
  create: createModel,
  boundsInUse,
});
