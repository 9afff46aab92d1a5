/**
 * A user's model (a module `shardkv check ./my-model.ts` loads) may throw, or hold a value the
 * codec cannot store (a bigint, a function). The checker's own stack trace then says neither
 * where nor in which state. `guardModel` wraps every function of the model so that such a
 * failure becomes one ModelError naming the function, the state and the action, which the
 * CLI reports as invalid input (exit 2) rather than as a problem found (exit 1).
 */
import type { AnyModel, Invariant, TemporalProperty } from './model.js';

export class ModelError extends Error {
  override name = 'ModelError';
}

/** Characters of a state or action shown in the message. */
const shownCharsMax = 300;

export function describeValue(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_key, item: unknown) =>
      typeof item === 'bigint' ? `${item}n` : typeof item === 'function' ? '[function]' : item) ??
      String(value);
  } catch {
    text = String(value);
  }
  return text.length > shownCharsMax ? `${text.slice(0, shownCharsMax - 3)}...` : text;
}

/** Says which state and action a failing call had, from its arguments. */
type Context = (args: readonly unknown[]) => string;

function guarded<Args extends unknown[], Result>(
  modelName: string, what: string, run: (...args: Args) => Result, context: Context,
): (...args: Args) => Result {
  return (...args: Args) => {
    try {
      return run(...args);
    } catch (error) {
      if (error instanceof ModelError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ModelError(`model ${modelName}: ${what} failed` +
        `${context(args)}: ${reason.split('\n')[0]}`);
    }
  };
}

const inState: Context = (args) => ` in state ${describeValue(args[0])}`;
const onAction: Context = (args) => ` for action ${describeValue(args[1])}${inState(args)}`;
const noContext: Context = () => '';

export function guardModel(model: AnyModel): AnyModel {
  const name = model.name;
  const wrap = <Args extends unknown[], Result>(what: string, run: (...args: Args) => Result,
    context: Context) => guarded(name, what, run, context);
  const invariant = (spec: Invariant<unknown>): Invariant<unknown> => ({
    name: spec.name,
    holds: wrap(`invariant ${spec.name}`, (state) => spec.holds(state), inState),
    ...(spec.explain
      ? { explain: wrap(`${spec.name}'s explain`, (state) => spec.explain!(state), inState) }
      : {}),
  });
  const property = (spec: TemporalProperty<unknown>): TemporalProperty<unknown> => {
    const holds = wrap(`property ${spec.name}`, (state: unknown) => spec.holds(state), inState);
    if (spec.kind === 'eventually') return { ...spec, holds };
    const trigger = wrap(`property ${spec.name}`, (state: unknown) => spec.trigger(state), inState);
    return { ...spec, holds, trigger };
  };
  const codec = model.codec;
  return {
    ...model,
    initialStates: wrap('initialStates()', () => model.initialStates(), noContext),
    actions: wrap('actions()', (state) => model.actions(state), inState),
    next: wrap('next()', (state, action) => model.next(state, action), onAction),
    label: wrap('label()', (action) => model.label(action),
      (args) => ` for action ${describeValue(args[0])}`),
    invariants: model.invariants.map(invariant),
    ...(model.invariantsHold ? {
      invariantsHold: wrap('invariantsHold()', (state) => model.invariantsHold!(state), inState),
    } : {}),
    codec: {
      encode: wrap('encoding the state', (state, out) => codec.encode(state, out), inState),
      decode: wrap('decoding a state', (input) => codec.decode(input), noContext),
    },
    ...(model.withinBounds ? {
      withinBounds: wrap('withinBounds()', (state) => model.withinBounds!(state), inState),
    } : {}),
    ...(model.isTerminal ? {
      isTerminal: wrap('isTerminal()', (state) => model.isTerminal!(state), inState),
    } : {}),
    ...(model.writeView ? {
      writeView: wrap('writeView()', (state, out) => model.writeView!(state, out), inState),
    } : {}),
    ...(model.variables ? {
      variables: wrap('variables()', (state) => model.variables!(state), inState),
    } : {}),
    ...(model.successorWords ? {
      successorWords: wrap('successorWords()', (words, start, end, out, emit) =>
        model.successorWords!(words, start, end, out, emit), noContext),
    } : {}),
    ...(model.diagram ? {
      diagram: wrap('diagram()', (before, action, after) =>
        model.diagram!(before, action, after), onAction),
    } : {}),
    ...(model.properties ? { properties: model.properties.map(property) } : {}),
  };
}
