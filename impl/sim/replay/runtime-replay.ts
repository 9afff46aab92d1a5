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
import type { AnyModel, ModelDefinition } from '../../../checker/model.js';
import { UsageError } from '../../../checker/params.js';
import { replayTrace, traceModelParams } from '../../../checker/replay.js';
import { itfToText, type ItfValue } from '../../../checker/itf.js';
import { differences } from '../../../checker/itf-diff.js';
import { stateVariables, type Trace } from '../../../checker/trace.js';
import { RuntimeDivergence, type RuntimeAdapter } from './adapter.js';
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
  | { readonly result: 'clean'; readonly steps: readonly RuntimeStepReport[] }
  | {
      readonly result: 'diverged';
      readonly step: number;
      readonly reason: string;
      readonly steps: readonly RuntimeStepReport[];
    };

export interface RuntimeReplayOptions {
  /** Run the correct code (no bug switch) along the trace's schedule. */
  readonly withoutBug: boolean;
}

type Adapter = RuntimeAdapter<unknown, unknown>;

function createAdapter(trace: Trace, _model: AnyModel, bug: string | null): Adapter {
  const params = trace.params;
  if (trace.model === 'raft') return createRaftAdapter(params, bug) as Adapter;
  throw new UsageError(`--runtime replays raft and migration traces, not '${trace.model}'`);
}

/** The first compared variable where the runtime and the spec differ, as one line. */
function firstDifference(
  compared: readonly string[],
  spec: Readonly<Record<string, ItfValue>>,
  runtime: Readonly<Record<string, ItfValue>>,
): string | null {
  const pick = (variables: Readonly<Record<string, ItfValue>>) =>
    Object.fromEntries(compared.flatMap((name) =>
      variables[name] === undefined ? [] : [[name, variables[name]!] as const]));
  const [first] = differences(pick(spec), pick(runtime));
  if (first === undefined) return null;
  const text = (value: ItfValue | undefined) => value === undefined ? '(absent)' : itfToText(value);
  return `${first.path.replace(/^\./, '')}: spec ${text(first.before)}, ` +
    `runtime ${text(first.after)}`;
}

function violated(model: AnyModel, adapter: Adapter, state: unknown): string | null {
  for (const invariant of model.invariants) {
    if (!adapter.evaluatedInvariants.includes(invariant.name)) continue;
    if (!invariant.holds(state)) return invariant.name;
  }
  return null;
}

/** The trace's model, with the bug the mode selects; throws UsageError on a trace it cannot run. */
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

export async function replayInRuntime(
  definition: ModelDefinition,
  trace: Trace,
  options: RuntimeReplayOptions,
): Promise<RuntimeReplayOutcome> {
  const { model, bug } = prepare(definition, trace, options);
  const adapter = createAdapter(trace, model, bug);
  const reports: RuntimeStepReport[] = [];
  try {
    let state = model.initialStates()[trace.initialIndex];
    if (state === undefined) throw new UsageError(`no initial state ${trace.initialIndex}`);
    await adapter.setUp();
    const check = (step: number) => {
      const observed = adapter.observe(state);
      const difference = firstDifference(adapter.comparedVariables,
        stateVariables(model, state), stateVariables(model, observed));
      return { difference, invariant: violated(model, adapter, observed), step };
    };
    const initial = check(0);
    if (initial.difference !== null) {
      return { result: 'diverged', step: 0, reason: initial.difference, steps: reports };
    }
    for (const recorded of trace.steps) {
      const action = model.actions(state).find((candidate) =>
        JSON.stringify(candidate) === JSON.stringify(recorded.action));
      const next = action === undefined ? null : model.next(state, action);
      if (action === undefined || next === null) {
        throw new UsageError(`step ${recorded.step}: ${recorded.label} is not enabled in the ` +
          'spec without the bug, so the schedule cannot be run on the correct code');
      }
      state = next;
      let note: string | null;
      try {
        note = await adapter.perform(action, state);
      } catch (error) {
        if (!(error instanceof RuntimeDivergence)) throw error;
        reports.push({ step: recorded.step, label: recorded.label, agrees: false,
          note: error.message });
        return { result: 'diverged', step: recorded.step, reason: error.message, steps: reports };
      }
      const after = check(recorded.step);
      reports.push({ step: recorded.step, label: recorded.label,
        agrees: after.difference === null,
        ...(after.difference ?? note) === null ? {} : { note: (after.difference ?? note)! } });
      if (after.difference !== null) {
        return { result: 'diverged', step: recorded.step, reason: after.difference,
          steps: reports };
      }
      if (after.invariant !== null) {
        return { result: 'reproduced', invariant: after.invariant, step: recorded.step,
          steps: reports };
      }
    }
    return { result: 'clean', steps: reports };
  } finally {
    adapter.tearDown();
  }
}
