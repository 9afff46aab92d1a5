/**
 * `shardkv replay FILE --runtime` (issue 14 item 4): drives the runtime's real nodes along a
 * checker trace, one action at a time, and shows that the counterexample happens in the node
 * code, not only in the spec. After each step the state the runtime holds is compared with
 * the spec's state for the variables both have, and the invariants whose variables all come
 * from the runtime are evaluated on the runtime's state.
 *
 * With the trace's bug switched on in the servers, the spec's states are the trace's own and
 * the trace's violation must reappear in the runtime. `withoutBug` replays the same schedule
 * on the correct code: the spec's states are then re-executed without the bug (the trace's
 * recorded ones would differ where the bug acts), and the run must stay clean.
 */
import type { AnyModel, ModelDefinition, Params } from '../../checker/model.js';
import type { ShellFaults } from '../../impl/node/shell-faults.js';
import { createControllerAdapter } from './controller-adapter.js';
import { UsageError } from '../../checker/params.js';
import { replayTrace, traceModelParams } from '../../checker/replay.js';
import { itfToText, type ItfValue } from '../../checker/itf.js';
import { differences } from '../../checker/itf-diff.js';
import { stateVariables, type Trace } from '../../checker/trace.js';
import { RuntimeDivergence, type RuntimeAdapter } from './adapter.js';
import { createMigrationAdapter } from './migration-adapter.js';
import { createRaftAdapter } from './raft-adapter.js';

export interface RuntimeStepReport {
  readonly step: number;
  readonly label: string;
  /** Whether the runtime took the step and holds the spec's values afterwards. */
  readonly agrees: boolean;
  /** What the runtime did beyond the action, or where it differs. */
  readonly note?: string;
}

export type RuntimeReplayOutcome =
  | {
      readonly result: 'reproduced';
      readonly invariant: string;
      readonly step: number;
      readonly steps: readonly RuntimeStepReport[];
    }
  | {
      readonly result: 'clean';
      readonly steps: readonly RuntimeStepReport[];
    }
  | {
      readonly result: 'diverged';
      readonly step: number;
      readonly reason: string;
      readonly steps: readonly RuntimeStepReport[];
    };

export interface RuntimeReplayOptions {
  /** Run the correct code (no bug switch) along the trace's schedule. */
  readonly withoutBug: boolean;
  /** Shell faults planted in the servers (mbt's tests only). */
  readonly faults?: Partial<ShellFaults>;
}

export type Adapter = RuntimeAdapter<unknown, unknown>;

/** The models the runtime can be driven along. */
export const runtimeModels = ['raft', 'migration', 'controller'];

/**
 * The adapter of `modelName`, its servers running `bug` and, in mbt's tests only, the planted
 * shell `faults`.
 */
export function createAdapter(
  modelName: string,
  params: Params,
  model: AnyModel,
  bug: string | null,
  faults: Partial<ShellFaults> = {},
): Adapter {
  if (modelName === 'raft') return createRaftAdapter(params, bug, faults) as Adapter;
  if (modelName === 'migration') {
    return createMigrationAdapter(params, bug, model, faults) as Adapter;
  }
  if (modelName === 'controller') return createControllerAdapter(params, bug, faults) as Adapter;
  throw new UsageError(`the runtime is driven along ${runtimeModels.join(', ')} traces, ` +
    `not '${modelName}'`);
}

/** The first compared variable where the runtime and the spec differ, as one line. */
function firstDifference(
  model: AnyModel,
  compared: readonly string[],
  spec: unknown,
  runtime: unknown,
): string | null {
  // The fast path (mbt compares after every step): raw values equal, printed values equal.
  const raw = (state: unknown) => state as Record<string, unknown>;
  const same = compared.every((name) => name in raw(spec) && name in raw(runtime) &&
    plainEqual(raw(spec)[name], raw(runtime)[name]));
  if (same) return null;
  const pick = (state: unknown) => {
    const variables = stateVariables(model, state);
    return Object.fromEntries(compared.flatMap((name) =>
      variables[name] === undefined ? [] : [[name, variables[name]!] as const]));
  };
  const [first] = differences(pick(spec), pick(runtime));
  if (first === undefined) return null;
  const text = (value: ItfValue | undefined) =>
    value === undefined ? '(absent)' : itfToText(value);
  return `${first.path.replace(/^\./, '')}: spec ${text(first.before)}, ` +
    `runtime ${text(first.after)}`;
}

/** Deep equality of plain data (records, arrays, Maps, Sets, primitives). */
function plainEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length &&
      a.every((item, at) => plainEqual(item, b[at]));
  }
  if (a instanceof Map || a instanceof Set || b instanceof Map || b instanceof Set) {
    const entries = (value: object) => value instanceof Map || value instanceof Set
      ? [...value.entries()] : null;
    const [first, second] = [entries(a), entries(b)];
    return first !== null && second !== null && plainEqual(first, second);
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  const record = b as Record<string, unknown>;
  return keys.length === Object.keys(b).length &&
    keys.every((key) => key in record && plainEqual((a as Record<string, unknown>)[key], record[key]));
}

function violated(model: AnyModel, adapter: Adapter, state: unknown): string | null {
  for (const invariant of model.invariants) {
    if (!adapter.evaluatedInvariants.includes(invariant.name)) continue;
    if (!invariant.holds(state)) return invariant.name;
  }
  return null;
}

/** The trace's model with the bug the mode selects; a UsageError for a trace it cannot run. */
function prepare(definition: ModelDefinition, trace: Trace, options: RuntimeReplayOptions) {
  if (trace.loop !== undefined) {
    throw new UsageError('--runtime replays safety counterexamples, not a liveness lasso');
  }
  if (options.withoutBug && trace.bug === null) {
    throw new UsageError('--without-bug: the trace names no bug to switch off');
  }
  const checked = replayTrace(definition, trace);
  if (checked.result === 'invalid') {
    throw new UsageError(`the trace does not replay in the spec: step ${checked.step}: ` +
      checked.reason);
  }
  const bug = options.withoutBug ? null : trace.bug;
  const model = definition.create(traceModelParams(definition, trace), bug ?? undefined);
  return { model, bug };
}

/** The spec's states along the schedule: states[k] after actions[k - 1]. */
export interface Schedule {
  readonly actions: readonly unknown[];
  readonly states: readonly unknown[];
  /** Step numbers where the correct code takes the counterpart of the recorded action. */
  readonly counterparts: ReadonlySet<number>;
}

function schedule(model: AnyModel, adapter: Adapter, trace: Trace): Schedule {
  let state = model.initialStates()[trace.initialIndex];
  if (state === undefined) throw new UsageError(`no initial state ${trace.initialIndex}`);
  const actions: unknown[] = [];
  const states: unknown[] = [state];
  const counterparts = new Set<number>();
  for (const recorded of trace.steps) {
    const enabled = model.actions(state!);
    const exact = enabled.find((candidate) =>
      JSON.stringify(candidate) === JSON.stringify(recorded.action));
    let action = exact;
    let next = exact === undefined ? null : model.next(state!, exact);
    if (next === null) {
      action = adapter.counterpart(recorded.action, enabled);
      next = action === undefined ? null : model.next(state!, action);
      counterparts.add(recorded.step);
    }
    if (next === null) {
      throw new UsageError(`step ${recorded.step}: ${recorded.label} is not enabled in the ` +
        'spec without the bug, so the schedule cannot be run on the correct code');
    }
    actions.push(action);
    states.push(next);
    state = next;
  }
  return { actions, states, counterparts };
}

export async function replayInRuntime(
  definition: ModelDefinition,
  trace: Trace,
  options: RuntimeReplayOptions,
): Promise<RuntimeReplayOutcome> {
  const { model, bug } = prepare(definition, trace, options);
  // The model's bounds as the spec replay resolves them: a bound the trace predates has its
  // default, so the runtime runs with the bounds the model ran with.
  const params = traceModelParams(definition, trace);
  const adapter = createAdapter(trace.model, params, model, bug, options.faults);
  try {
    const planned = schedule(model, adapter, trace);
    return await driveSchedule(model, adapter, planned, trace.steps.map((step) => step.label));
  } finally {
    adapter.tearDown();
  }
}

/** The runtime's state, if it holds the spec's values after step `step`, or the difference. */
function match(
  model: AnyModel,
  adapter: Adapter,
  planned: Schedule,
  step: number,
): { observed: unknown } | { difference: string } {
  let observed: unknown;
  try {
    observed = adapter.observe(planned.states[step]);
  } catch (error) {
    // A runtime state the model cannot hold (a snapshot of the shell's state machine).
    if (!(error instanceof RuntimeDivergence)) throw error;
    return { difference: error.message };
  }
  const difference = firstDifference(model, adapter.comparedVariables,
    planned.states[step], observed);
  return difference === null ? { observed } : { difference };
}

/**
 * Drives `adapter` (set up here; the caller tears it down) along `planned`, comparing after
 * every step and evaluating the runtime-read invariants; `labels[k - 1]` names step k.
 */
export async function driveSchedule(
  model: AnyModel,
  adapter: Adapter,
  planned: Schedule,
  labels: readonly string[],
): Promise<RuntimeReplayOutcome> {
  const reports: RuntimeStepReport[] = [];
  try {
    await adapter.setUp();
  } catch (error) {
    if (!(error instanceof RuntimeDivergence)) throw error;
    return { result: 'diverged', step: 0, reason: error.message, steps: reports };
  }
  const initial = match(model, adapter, planned, 0);
  if ('difference' in initial) {
    return { result: 'diverged', step: 0, reason: initial.difference, steps: reports };
  }
  for (let step = 1; step < planned.states.length; step++) {
    const label = labels[step - 1]!;
    const notes = planned.counterparts.has(step)
      ? [`the correct code takes ${model.label(planned.actions[step - 1])} instead`]
      : [];
    try {
      const note = await adapter.perform(planned.actions[step - 1],
        planned.states[step - 1], planned.states[step]);
      if (note !== null) notes.push(note);
    } catch (error) {
      if (!(error instanceof RuntimeDivergence)) throw error;
      reports.push({ step, label, agrees: false, note: error.message });
      return { result: 'diverged', step, reason: error.message, steps: reports };
    }
    const matched = match(model, adapter, planned, step);
    if ('difference' in matched) {
      reports.push({ step, label, agrees: false, note: matched.difference });
      return { result: 'diverged', step, reason: matched.difference, steps: reports };
    }
    reports.push({ step, label, agrees: true,
      ...(notes.length === 0 ? {} : { note: notes.join('; ') }) });
    const invariant = violated(model, adapter, matched.observed);
    if (invariant !== null) {
      return { result: 'reproduced', invariant, step, steps: reports };
    }
  }
  return { result: 'clean', steps: reports };
}
