/**
 * `check raft --refines raft.tla`: the `raft` model with one more invariant, RefinesRaftTla,
 * that every step taken so far maps, through the abstraction of refinement.ts, onto a
 * stuttering step or a sequence of at most maxTlaSteps raft.tla actions. The verdict of each
 * step is a proof-only flag in the state (as the raft model's own history flags), so the
 * checker's search, counts, shortest counterexample and replay serve it unchanged: every
 * generated transition is checked, those into states outside the bounds included.
 */
import type { Model } from '../../checker/model.js';
import { assert } from '../../spec/assert.js';
import { extendCodec, liftInvariants } from './model-extension.js';
import type { RaftBounds, RaftModelState } from './model-state.js';
import { createRaftModel, type RaftAction } from './model.js';
import { mapStep, maxTlaSteps, tlaRaftFor } from './refinement.js';
import { refinementFigures, type RefinementFigures } from './refinement-figures.js';
import { maximumLogLength, maximumValues } from './tla-state.js';
import type { RaftOptions } from '../../spec/raft/types.js';

export interface RefinementState {
  readonly raft: RaftModelState;
  /** Proof-only: set when a step mapped onto no sequence of raft.tla actions. */
  readonly unmapped: boolean;
}

export const refinementInvariantName = 'RefinesRaftTla';

/** Why a bound or option cannot be checked for refinement, or null when it can. */
export function refinementRefusal(bounds: RaftBounds, options: RaftOptions): string | null {
  if (bounds.maxCompactions > 0) return 'snapshots have no raft.tla action (--max-compactions 0)';
  if (options.preVote === true || options.checkQuorum === true)
    return 'PreVote and CheckQuorum have no raft.tla counterpart';
  if ((options.maxInflightAppends ?? 0) > 0)
    return "flow control's heartbeats and streams have no raft.tla action (--inflight-window 0)";
  if (bounds.maxLog > maximumLogLength) return `raft.tla's packed logs: --max-log at most 3`;
  if (bounds.values >= maximumValues) return `the no-op takes a value: --values at most 7`;
  return null;
}

/** The refinement model, and the second pass that tallies how its steps map. */
export type RefinementModel = Model<RefinementState, RaftAction> & {
  mappingFigures(): RefinementFigures;
};

export function createRefinementModel(
  bounds: RaftBounds,
  options: RaftOptions = {},
  symmetry = false,
): RefinementModel {
  const refusal = refinementRefusal(bounds, options);
  assert(refusal === null, `refinement: ${refusal}`);
  const raft = createRaftModel(bounds, options, symmetry);
  const tla = tlaRaftFor(bounds.servers, bounds.values);
  const writeView = raft.writeView;
  return {
    name: 'raft',
    mappingFigures: () => refinementFigures(raft, tla),
    initialStates: () =>
      raft.initialStates().map((initial) => ({ raft: initial, unmapped: false })),
    actions: (state) => raft.actions(state.raft),
    next: (state, action) => {
      const next = raft.next(state.raft, action);
      if (next === null) return null;
      const unmapped = state.unmapped || mapStep(tla, state.raft, action, next) === null;
      return { raft: next, unmapped };
    },
    label: raft.label,
    diagram: (before, action, after) => raft.diagram!(before.raft, action, after.raft),
    invariants: [
      ...liftInvariants<RefinementState>(raft.invariants),
      {
        name: refinementInvariantName,
        holds: (state) => !state.unmapped,
        explain: () =>
          `the last step maps onto no stuttering step and no sequence of at most ${maxTlaSteps} ` +
          'raft.tla actions (abstraction: spec/raft/refinement.ts)',
      },
    ],
    withinBounds: (state) => raft.withinBounds!(state.raft),
    codec: extendCodec<RefinementState>(
      raft.codec,
      (state, out) => out.push(state.unmapped ? 1 : 0),
      (decoded, input) => ({ raft: decoded, unmapped: input.next() === 1 }),
    ),
    ...(writeView
      ? {
          writeView: (state: RefinementState, out) => {
            writeView(state.raft, out);
            out.push(state.unmapped ? 1 : 0);
          },
        }
      : {}),
    variables: (state) => ({ ...raft.variables!(state.raft), unmapped: state.unmapped }),
  };
}
