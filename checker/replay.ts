/**
 * Replaying a trace: re-execute every step through the model and check, in order, that each
 * action is enabled where the trace says, that the spec produces the recorded state, and
 * whether an invariant fails. A trace that does not fit the spec is invalid input, whatever
 * it claims; a violation must be reproduced, never taken from the file.
 */
import { ok as assert } from 'node:assert';
import { lassoDefect } from './liveness-trace.js';
import type { AnyModel, ModelDefinition, Params } from './model.js';
import { resolveParams, UsageError } from './params.js';
import { violatedInvariant } from './search.js';
import { itfToText, upgradeItfValue, type ItfValue } from './itf.js';
import { differences } from './itf-diff.js';
import {
  changedVariables,
  stateVariables,
  traceFormat,
  traceVersion,
  type Trace,
  type TraceStep,
} from './trace.js';

export type ReplayOutcome =
  | { readonly result: 'ok'; readonly steps: number }
  | {
      readonly result: 'violation';
      readonly steps: number;
      readonly invariant: string;
      readonly step: number;
      /** Set when a lasso violates the temporal property named `invariant`. */
      readonly loop?: number;
    }
  | { readonly result: 'invalid'; readonly step: number; readonly reason: string };

/** Parses a trace file's text; throws a one-line UsageError when it is not a trace. */
export function parseTrace(text: string): Trace {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`not a JSON trace: ${(error as Error).message}`);
  }
  const trace = value as Partial<Trace>;
  if (typeof value !== 'object' || value === null || trace.format !== traceFormat) {
    throw new UsageError(`not a ${traceFormat} file (missing "format": "${traceFormat}")`);
  }
  if (trace.version !== traceVersion) {
    throw new UsageError(
      `trace version ${JSON.stringify(trace.version)} is not supported (this replay reads ` +
        `version ${traceVersion})`,
    );
  }
  const problem =
    typeof trace.model !== 'string'
      ? 'model'
      : typeof trace.params !== 'object' || trace.params === null
        ? 'params'
        : !Number.isInteger(trace.initialIndex)
          ? 'initialIndex'
          : !Array.isArray(trace.steps)
            ? 'steps'
            : trace.states !== undefined && !Array.isArray(trace.states)
              ? 'states'
              : null;
  if (problem) throw new UsageError(`malformed trace: field "${problem}" is missing or invalid`);
  trace.steps!.forEach((step, index) => checkStepShape(step, index + 1));
  if (trace.states !== undefined && trace.states.length !== trace.steps!.length + 1) {
    throw new UsageError(
      `malformed trace: ${trace.states.length} states for ${trace.steps!.length} steps ` +
        '(one more state than steps expected)',
    );
  }
  return {
    ...(trace as Trace),
    steps: trace.steps!.map((step) => ({ ...step, changed: upgradeRecord(step.changed) })),
    ...(trace.states ? { states: trace.states.map(upgradeRecord) } : {}),
  };
}

function upgradeRecord(
  variables: Readonly<Record<string, ItfValue>>,
): Readonly<Record<string, ItfValue>> {
  return upgradeItfValue(variables) as Record<string, ItfValue>;
}

/** Every field of a step, checked: a hand-edited step number or field is invalid input. */
function checkStepShape(step: unknown, number: number): void {
  const fail = (what: string) => {
    throw new UsageError(`malformed trace: step ${number}: ${what}`);
  };
  if (typeof step !== 'object' || step === null || !('action' in step)) fail('has no action');
  const fields = step as Partial<TraceStep>;
  if (fields.step !== number) fail(`"step" is ${JSON.stringify(fields.step)}, expected ${number}`);
  if (typeof fields.label !== 'string') fail('"label" is missing or not a string');
  if (!Number.isInteger(fields.actionIndex)) fail('"actionIndex" is missing or not an integer');
  const changed = fields.changed as unknown;
  if (typeof changed !== 'object' || changed === null || Array.isArray(changed)) {
    fail('"changed" is missing or not an object');
  }
}

/** Rebuilds the trace's model, with its parameters checked as the CLI checks flags. */
export function traceModelParams(definition: ModelDefinition, trace: Trace): Params {
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries(trace.params)) given[name] = String(value);
  return resolveParams(definition, trace.bug ?? undefined, given);
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What a valid replay went through, for pictures of it (diagram.ts). */
export type ReplayedPath = (model: AnyModel, states: unknown[], actions: unknown[]) => void;

export function replayTrace(
  definition: ModelDefinition,
  trace: Trace,
  onReplayed?: ReplayedPath,
): ReplayOutcome {
  const model = definition.create(traceModelParams(definition, trace), trace.bug ?? undefined);
  let state = model.initialStates()[trace.initialIndex];
  if (state === undefined) {
    return {
      result: 'invalid',
      step: 0,
      reason: `the model has no initial state ${trace.initialIndex}`,
    };
  }
  const mismatch = (step: number, recomputed: unknown) => {
    const recorded = trace.states?.[step];
    if (recorded === undefined) return null;
    return firstMismatch('', recorded, stateVariables(model, recomputed));
  };
  const initialMismatch = mismatch(0, state);
  if (initialMismatch) return { result: 'invalid', step: 0, reason: initialMismatch };
  let firstViolation: { invariant: string; step: number } | undefined;
  const noteViolation = (step: number) => {
    const invariant = violatedInvariant(model, state);
    if (invariant !== null && !firstViolation) firstViolation = { invariant, step };
  };
  noteViolation(0);
  const states: unknown[] = [state];
  const actions: unknown[] = [];
  for (const [index, recordedStep] of trace.steps.entries()) {
    const step = index + 1;
    const enabled = model.actions(state);
    const action = enabled.find((candidate) => sameJson(candidate, recordedStep.action));
    if (action === undefined) {
      const recorded = JSON.stringify(recordedStep.action);
      return {
        result: 'invalid',
        step,
        reason: `action ${recorded} is not an action of this state`,
      };
    }
    const inconsistency = stepInconsistency(
      recordedStep,
      enabled.indexOf(action),
      model.label(action),
    );
    if (inconsistency) return { result: 'invalid', step, reason: inconsistency };
    const next = model.next(state, action);
    if (next === null) {
      return {
        result: 'invalid',
        step,
        reason: `${model.label(action)} is not enabled in this state`,
      };
    }
    // `changed` is checked where the trace records states (every file `check` writes); a
    // trace given without states replays its actions only.
    if (trace.states?.[step] !== undefined) {
      const changedMismatch = firstMismatch(
        'changed.',
        recordedStep.changed,
        changedVariables(stateVariables(model, state), stateVariables(model, next)),
      );
      if (changedMismatch) return { result: 'invalid', step, reason: changedMismatch };
    }
    state = next;
    states.push(state);
    actions.push(action);
    const stateMismatch = mismatch(step, state);
    if (stateMismatch) return { result: 'invalid', step, reason: stateMismatch };
    noteViolation(step);
  }
  assert(state !== undefined, 'replay lost its state');
  const steps = trace.steps.length;
  onReplayed?.(model, states, actions);
  if (trace.loop !== undefined && !firstViolation) {
    const defect = lassoDefect(model, trace, states, actions);
    if (defect) return { result: 'invalid', step: steps, reason: defect };
    const property = trace.property!;
    return { result: 'violation', steps, invariant: property, step: steps, loop: trace.loop };
  }
  return firstViolation
    ? { result: 'violation', steps, ...firstViolation }
    : { result: 'ok', steps };
}

/** The first field where a recorded value and the spec's differ: "servers[1].currentTerm: ...". */
function firstMismatch(
  prefix: string,
  recorded: Readonly<Record<string, ItfValue>>,
  spec: Readonly<Record<string, ItfValue>>,
): string | null {
  const [first] = differences(recorded, spec);
  if (!first) return null;
  const text = (value: ItfValue | undefined) =>
    value === undefined ? '(absent)' : itfToText(value);
  return `${prefix}${first.path}: recorded ${text(first.before)}, spec ${text(first.after)}`;
}

/** A step whose index or label disagrees with its action was edited by hand: say so. */
function stepInconsistency(
  recorded: { readonly actionIndex?: unknown; readonly label?: unknown },
  actionIndex: number,
  label: string,
): string | null {
  if (recorded.actionIndex !== undefined && recorded.actionIndex !== actionIndex) {
    const given = String(recorded.actionIndex);
    return `actionIndex ${given} does not match the action (index ${actionIndex})`;
  }
  if (recorded.label !== undefined && recorded.label !== label) {
    return `label ${JSON.stringify(recorded.label)} does not match the action (${label})`;
  }
  return null;
}
