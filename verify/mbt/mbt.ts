/**
 * `shardkv mbt MODEL` (issue 23): model-based testing of the runtime. The model generates
 * schedules (schedules.ts); each drives fresh real node shells through the replay adapters
 * (held network, name-fired timers, memory disks, a still clock) one action at a time, and
 * after every step the runtime's state is compared with the spec's and the invariants are
 * evaluated on the runtime's state (runtime-replay.ts driveSchedule). The first schedule the
 * runtime does not follow is shrunk (steps after the divergence cut, then single steps left
 * out while the rest still runs in the spec and still diverges) into a trace that
 * `shardkv replay FILE --runtime` reproduces.
 */
import type { AnyModel, Params } from '../../checker/model.js';
import type { Path } from '../../checker/search.js';
import { buildTrace, executePath, type Trace } from '../../checker/trace.js';
import { drivableBy, type Drivable, type Schedule } from './schedules.js';
import type { ShellFaults } from '../../impl/node/shell-faults.js';
import {
  createAdapter, driveSchedule, type Adapter, type RuntimeReplayOutcome,
} from '../replay/runtime-replay.js';

export interface MbtTarget {
  readonly name: string;
  readonly params: Params;
  /**
   * The model, with `bug` when one is given: its schedules reach the bug's actions, and the
   * runtime runs the same catalog bug switched on (as `replay --runtime` does), so mbt sees
   * the bug as an invariant failing on the runtime's state or as a divergence.
   */
  readonly model: AnyModel;
  /** A catalog bug switched on in the runtime (and in `model`); none tests the correct code. */
  readonly bug?: string;
  /** Planted shell faults (tests only). */
  readonly faults?: Partial<ShellFaults>;
}

export type MbtOutcome =
  | {
      readonly result: 'clean';
      readonly schedules: number;
      /** Model steps driven through the runtime (each compared and checked). */
      readonly steps: number;
    }
  | {
      readonly result: 'diverged';
      readonly schedules: number;
      readonly steps: number;
      /** The failing schedule's step count before shrinking, and the shrunk trace. */
      readonly found: number;
      readonly trace: Trace;
      /** The step of the shrunk trace the runtime fails at, and why. */
      readonly step: number;
      readonly reason: string;
    };

/** Runtime runs a shrink may spend (each replays at most the failing schedule). */
const shrinkRunsMax = 400;

type Failure = Exclude<RuntimeReplayOutcome, { result: 'clean' }>;

/** What the runtime cannot be driven by, and why (the adapter says; nothing is started). */
export function undrivenActions(target: MbtTarget): Adapter {
  return createAdapter(target.name, target.params, target.model, target.bug ?? null, target.faults);
}

/** Drives fresh nodes along `path`; the outcome and the number of steps driven. */
export async function drivePath(target: MbtTarget, path: Schedule):
  Promise<RuntimeReplayOutcome> {
  const { model } = target;
  const { states, actions } = path.walked ?? executePath(model, path);
  const adapter = createAdapter(target.name, target.params, model, target.bug ?? null, target.faults);
  try {
    return await driveSchedule(model, adapter, { actions, states, counterparts: new Set() },
      actions.map((action) => model.label(action)));
  } finally {
    adapter.tearDown();
  }
}

function failureReason(failure: Failure): string {
  return failure.result === 'reproduced'
    ? `${failure.invariant} is violated in the runtime's state`
    : failure.reason;
}

export async function runMbt(
  target: MbtTarget,
  schedules: Iterable<Schedule>,
  onProgress?: (schedules: number, steps: number) => void,
): Promise<MbtOutcome> {
  let count = 0;
  let steps = 0;
  for (const path of schedules) {
    count++;
    const outcome = await drivePath(target, path);
    if (outcome.result !== 'clean') {
      steps += outcome.step;
      const cut = { initialIndex: path.initialIndex,
        actionIndexes: path.actionIndexes.slice(0, outcome.step) };
      const shrunk = await shrink(target, cut, outcome);
      const trace = buildTrace(target.model,
        { model: target.name, params: target.params, bug: target.bug }, shrunk.path, undefined);
      return { result: 'diverged', schedules: count, steps, found: outcome.step, trace,
        step: shrunk.failure.step, reason: failureReason(shrunk.failure) };
    }
    steps += path.actionIndexes.length;
    onProgress?.(count, steps);
  }
  return { result: 'clean', schedules: count, steps };
}

/**
 * `path` without its step `at`, re-executed in the spec by action value (indexes shift): a
 * later action no longer enabled (or leaving the bounds) goes too.
 */
function without(model: AnyModel, drivable: Drivable, path: Path, at: number): Path {
  const { actions } = executePath(model, path);
  let state = model.initialStates()[path.initialIndex];
  const actionIndexes: number[] = [];
  for (let step = 0; step < actions.length; step++) {
    if (step === at) continue;
    const wanted = JSON.stringify(actions[step]);
    const enabled = model.actions(state);
    const index = enabled.findIndex((action) => JSON.stringify(action) === wanted);
    const next = index < 0 ? null : model.next(state, enabled[index]);
    if (next === null || !(model.withinBounds?.(next) ?? true)) continue;
    if (!drivable(enabled[index], state)) continue;
    actionIndexes.push(index);
    state = next;
  }
  return { initialIndex: path.initialIndex, actionIndexes };
}

/**
 * Leaves out single steps, latest first, while the rest still fails in the runtime, and
 * cuts what follows the failure, until no step can go (or the run budget is spent).
 */
async function shrink(target: MbtTarget, path: Path, failure: Failure):
  Promise<{ path: Path; failure: Failure }> {
  let best = { path, failure };
  let runs = 0;
  const drivable = drivableBy(undrivenActions(target));
  for (let changed = true; changed && runs < shrinkRunsMax;) {
    changed = false;
    for (let at = best.path.actionIndexes.length - 1; at >= 0 && runs < shrinkRunsMax; at--) {
      const candidate = without(target.model, drivable, best.path, at);
      runs++;
      const outcome = await drivePath(target, candidate);
      if (outcome.result === 'clean') continue;
      best = { path: { ...candidate, actionIndexes: candidate.actionIndexes.slice(0, outcome.step) },
        failure: outcome };
      changed = true;
    }
  }
  return best;
}

