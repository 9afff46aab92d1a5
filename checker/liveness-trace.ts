/**
 * Liveness counterexamples as traces: a lasso is an ordinary trace (trace.ts) plus
 * `"property"` and `"loop"`. With n steps and loop < n, the last state equals states[loop]
 * and steps loop+1..n repeat forever; with loop = n the last state stutters forever.
 * Replay re-checks a lasso from the spec alone: the cycle closes, the property's target is
 * false where it must be, and the behaviour is fair (every weakly fair class enabled in all
 * of the cycle's states is taken on it; a stuttering end enables no fair class).
 */
import { fairnessClass } from './graph.js';
import type { Lasso } from './liveness.js';
import type { AnyModel, TemporalProperty } from './model.js';
import { buildTrace, formatTrace, traceToItf, type Trace, type TraceIdentity } from './trace.js';
import { WordWriter } from './words.js';

export function buildLassoTrace(
  model: AnyModel,
  identity: TraceIdentity,
  lasso: Lasso,
  property: string,
): Trace {
  const path = { initialIndex: lasso.initialIndex, actionIndexes: lasso.actionIndexes };
  return { ...buildTrace(model, identity, path, undefined), property, loop: lasso.loop };
}

/** The trace as numbered steps, then where the behaviour loops. */
export function formatLasso(trace: Trace): string {
  const steps = trace.steps.length;
  const loop = trace.loop ?? steps;
  const ending =
    loop === steps
      ? `State ${steps} stutters forever: no weakly fair action is enabled there.`
      : `After step ${steps} the behaviour is back in state ${loop}: ` +
        `steps ${loop + 1}..${steps} repeat forever.`;
  return `${formatTrace(trace)}\n${ending}`;
}

/** The ITF form, whose `loop` field marks the state where the lasso's cycle starts. */
export function lassoToItf(trace: Trace) {
  return { ...traceToItf(trace), loop: trace.loop };
}

function encoding(model: AnyModel, state: unknown): string {
  const out = new WordWriter();
  model.codec.encode(state, out);
  return out.words.subarray(0, out.length).join(',');
}

/** The fair classes that can take a non-stuttering step from the state. */
function enabledClasses(model: AnyModel, state: unknown): Set<string> {
  const classes = new Set<string>();
  const own = encoding(model, state);
  for (const action of model.actions(state)) {
    const fairClass = fairnessClass(model, action, state);
    if (fairClass === null || classes.has(fairClass)) continue;
    const next = model.next(state, action);
    if (next !== null && encoding(model, next) !== own) classes.add(fairClass);
  }
  return classes;
}

/**
 * Why the lasso is not a counterexample of its property, or null when it is. `states` and
 * `actions` come from re-executing the trace's steps (states[0] initial).
 */
export function lassoDefect(
  model: AnyModel,
  trace: Trace,
  states: readonly unknown[],
  actions: readonly unknown[],
): string | null {
  const steps = actions.length;
  const loop = trace.loop;
  if (!Number.isInteger(loop) || loop! < 0 || loop! > steps) {
    return `"loop" must be an integer between 0 and ${steps}`;
  }
  const property = (model.properties ?? []).find((candidate) => candidate.name === trace.property);
  if (!property) return `the model has no temporal property ${JSON.stringify(trace.property)}`;
  if (loop! < steps && encoding(model, states[steps]) !== encoding(model, states[loop!])) {
    return `the last state is not state ${loop}: the lasso does not close`;
  }
  return targetDefect(property, states, loop!) ?? fairnessDefect(model, states, actions, loop!);
}

function targetDefect(
  property: TemporalProperty<unknown>,
  states: readonly unknown[],
  loop: number,
): string | null {
  // Q must stay false from the violation's start: the initial state for `eventually`, a
  // state where P holds for `leadsTo` (and through the whole cycle, which repeats).
  const falseFrom = (start: number) =>
    states.slice(Math.min(start, loop)).every((state) => !property.holds(state));
  if (property.kind === 'eventually') {
    return falseFrom(0) ? null : `${property.name}'s target holds in a state of the lasso`;
  }
  const start = states.findIndex((state, index) => property.trigger(state) && falseFrom(index));
  return start >= 0 ? null : `no state of the lasso triggers ${property.name} without its target`;
}

function fairnessDefect(
  model: AnyModel,
  states: readonly unknown[],
  actions: readonly unknown[],
  loop: number,
): string | null {
  const last = states.length - 1;
  if (loop === last) {
    const enabled = [...enabledClasses(model, states[last])];
    return enabled.length === 0
      ? null
      : `the final stuttering is unfair: ${enabled[0]} is enabled there`;
  }
  const cycleStates = states.slice(loop, last);
  let always = enabledClasses(model, cycleStates[0]);
  for (const state of cycleStates.slice(1)) {
    const here = enabledClasses(model, state);
    always = new Set([...always].filter((fairClass) => here.has(fairClass)));
  }
  const taken = new Set<string>();
  actions.slice(loop).forEach((action, index) => {
    const before = encoding(model, cycleStates[index]);
    const after = encoding(model, states[loop + index + 1]);
    const fairClass = fairnessClass(model, action, cycleStates[index]);
    if (fairClass !== null && before !== after) taken.add(fairClass);
  });
  const starved = [...always].find((fairClass) => !taken.has(fairClass));
  return starved === undefined
    ? null
    : `the cycle is unfair: ${starved} is enabled throughout and never taken`;
}
