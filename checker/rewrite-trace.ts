/**
 * Rewriting a kept trace from the spec (`shardkv replay --rewrite`): the recorded action
 * values are the behaviour; everything printed about it (labels, action indexes, `changed`,
 * the states) is recomputed by re-executing those actions through today's model. This is how
 * traces/ follows a change of labels or printed states, by a command and never by hand; a
 * rewritten trace must still replay to the verdict its file names, or nothing is written.
 */
import type { ModelDefinition } from './model.js';
import { UsageError } from './params.js';
import { replayTrace, traceModelParams, type ReplayOutcome } from './replay.js';
import { buildTrace, type Trace } from './trace.js';

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The indexes of the trace's recorded actions among the actions of each state. */
function actionIndexesOf(definition: ModelDefinition, trace: Trace): number[] {
  const model = definition.create(traceModelParams(definition, trace), trace.bug ?? undefined);
  let state = model.initialStates()[trace.initialIndex];
  if (state === undefined) throw new UsageError(`no initial state ${trace.initialIndex}`);
  const indexes: number[] = [];
  for (const [position, step] of trace.steps.entries()) {
    const index = model.actions(state).findIndex((action) => sameJson(action, step.action));
    const next = index < 0 ? null : model.next(state, model.actions(state)[index]);
    if (next === null) {
      const action = JSON.stringify(step.action);
      throw new UsageError(`step ${position + 1}: action ${action} is not enabled: not rewritten`);
    }
    indexes.push(index);
    state = next;
  }
  return indexes;
}

/** The trace with every printed field recomputed; throws when its verdict would change. */
export function rewriteTrace(definition: ModelDefinition, trace: Trace): Trace {
  const model = definition.create(traceModelParams(definition, trace), trace.bug ?? undefined);
  const actionIndexes = actionIndexesOf(definition, trace);
  const path = { initialIndex: trace.initialIndex, actionIndexes };
  const identity = { model: trace.model, params: trace.params, bug: trace.bug ?? undefined };
  const built = buildTrace(model, identity, path, trace.invariant ?? undefined);
  const rewritten: Trace = {
    ...built,
    ...(trace.property !== undefined ? { property: trace.property } : {}),
    ...(trace.loop !== undefined ? { loop: trace.loop } : {}),
    ...(trace.module !== undefined ? { module: trace.module } : {}),
  };
  const outcome = replayTrace(definition, rewritten);
  const expected = trace.property ?? trace.invariant;
  if (!reproduces(outcome, expected)) {
    const found = outcome.result === 'violation' ? outcome.invariant : outcome.result;
    throw new UsageError(`the rewritten trace replays to ${found}, not ${expected ?? 'ok'}`);
  }
  return rewritten;
}

function reproduces(outcome: ReplayOutcome, expected: string | null | undefined): boolean {
  if (expected === null || expected === undefined) return outcome.result === 'ok';
  return outcome.result === 'violation' && outcome.invariant === expected;
}
