/**
 * Traces: a behaviour of a model, written so that `shardkv replay` can re-execute it through
 * spec/ and a person can read it. The schema is documented in traces/README.md.
 *
 * A trace names its model, parameters and bug (enough to rebuild the model), the initial
 * state's index, and each step's action (the action value, its label and its index among the
 * actions enabled at that point). Each state is recorded as ITF-encoded variables so that
 * replay can confirm that the spec still produces exactly what was recorded.
 */
import { ok as assert } from 'node:assert';
import { itfToText, itfTrace, toItfValue, type ItfTrace, type ItfValue } from './itf.js';
import { children, differences, formatDifference, maximumDifferences } from './itf-diff.js';
import type { AnyModel, Params } from './model.js';
import type { Path } from './search.js';

export const traceFormat = 'shardkv-trace';
export const traceVersion = 1;

export interface TraceStep {
  readonly step: number;
  readonly label: string;
  readonly action: unknown;
  readonly actionIndex: number;
  /** The variables this step changed, with their new values. */
  readonly changed: Readonly<Record<string, ItfValue>>;
}

export interface Trace {
  readonly format: typeof traceFormat;
  readonly version: typeof traceVersion;
  readonly model: string;
  readonly params: Params;
  readonly bug: string | null;
  /** The invariant the last state violates, when the trace is a counterexample. */
  readonly invariant: string | null;
  readonly initialIndex: number;
  readonly steps: readonly TraceStep[];
  /** states[0] is the initial state; states[k] follows step k. */
  readonly states: readonly Readonly<Record<string, ItfValue>>[];
  /** A liveness counterexample (liveness-trace.ts): the temporal property it violates. */
  readonly property?: string;
  /** A lasso: after the last step the behaviour returns to states[loop] and repeats forever. */
  readonly loop?: number;
  /** The module a model outside the registry was loaded from (load-model.ts). */
  readonly module?: string;
}

/** The variables of a state, ITF-encoded. */
export function stateVariables(model: AnyModel, state: unknown): Record<string, ItfValue> {
  const variables = model.variables ? model.variables(state) : state;
  const encoded = toItfValue(variables);
  assert(
    typeof encoded === 'object' && encoded !== null && !Array.isArray(encoded),
    'a state must be a record of variables',
  );
  return encoded as Record<string, ItfValue>;
}

export function changedVariables(
  before: Readonly<Record<string, ItfValue>>,
  after: Readonly<Record<string, ItfValue>>,
): Record<string, ItfValue> {
  const changed: Record<string, ItfValue> = {};
  for (const [name, value] of Object.entries(after)) {
    if (JSON.stringify(before[name]) !== JSON.stringify(value)) changed[name] = value;
  }
  return changed;
}

/** The states and actions of a path, by re-executing it from the initial state. */
export function executePath(
  model: AnyModel,
  path: Path,
): { states: unknown[]; actions: unknown[] } {
  const initial = model.initialStates()[path.initialIndex];
  assert(initial !== undefined, `no initial state ${path.initialIndex}`);
  const states: unknown[] = [initial];
  const actions: unknown[] = [];
  let state: unknown = initial;
  for (const actionIndex of path.actionIndexes) {
    const action = model.actions(state)[actionIndex];
    assert(action !== undefined, `no action ${actionIndex} in a state of the path`);
    const next = model.next(state, action);
    assert(next !== null, `action ${model.label(action)} of the path is not enabled`);
    actions.push(action);
    states.push(next);
    state = next;
  }
  return { states, actions };
}

export interface TraceIdentity {
  readonly model: string;
  readonly params: Params;
  readonly bug: string | undefined;
}

export function buildTrace(
  model: AnyModel,
  identity: TraceIdentity,
  path: Path,
  invariant: string | undefined,
): Trace {
  const { states, actions } = executePath(model, path);
  const variables = states.map((state) => stateVariables(model, state));
  const steps = actions.map((action, index) => ({
    step: index + 1,
    label: model.label(action),
    action,
    actionIndex: path.actionIndexes[index]!,
    changed: changedVariables(variables[index]!, variables[index + 1]!),
  }));
  return {
    format: traceFormat,
    version: traceVersion,
    model: identity.model,
    params: identity.params,
    bug: identity.bug ?? null,
    invariant: invariant ?? null,
    initialIndex: path.initialIndex,
    steps,
    states: variables,
  };
}

export function traceToItf(trace: Trace): ItfTrace {
  const bug = trace.bug ? ` with bug ${trace.bug}` : '';
  const what = trace.invariant ? `violation of ${trace.invariant}` : 'behaviour';
  return itfTrace(
    `shardkv ${trace.model}${bug}: ${what} in ${trace.steps.length} steps`,
    `shardkv check ${trace.model}`,
    trace.states,
    trace.steps.map((step) => step.label),
  );
}

/** An initial variable printed longer than this is printed a part per line. */
const initialLineWidth = 100;

/**
 * Numbered steps, each with the fields it changed as `path: old -> new`, as the CLI prints a
 * counterexample. Values are in a TLA+-like notation (records [a |-> 1], sequences <<1, 2>>,
 * functions (k :> v @@ ...), None for an absent value; positions in paths count from 0):
 * meant for people, not for SANY.
 */
export function formatTrace(trace: Trace): string {
  const lines = ['State 0 (initial):'];
  for (const [name, value] of Object.entries(trace.states[0] ?? {})) {
    // A long value with parts gets a line per part: one server, one group per line.
    const text = itfToText(value);
    const parts = text.length > initialLineWidth ? children(value) : null;
    if (parts && parts.length > 0) {
      for (const [suffix, item] of parts) lines.push(`    ${name}${suffix} = ${itfToText(item)}`);
    } else {
      lines.push(`    ${name} = ${text}`);
    }
  }
  for (const step of trace.steps) {
    lines.push(`Step ${step.step}: ${step.label}`);
    const before = trace.states[step.step - 1] ?? {};
    const after = trace.states[step.step] ?? { ...before, ...step.changed };
    const found = differences(before, after);
    for (const difference of found) lines.push(`    ${formatDifference(difference)}`);
    if (found.length === maximumDifferences) lines.push(`    ... (more than ${found.length})`);
  }
  return lines.join('\n');
}
