/**
 * `defineModel`: one declaration for a model, from which the checker gets everything the
 * registry and the CLI need (docs/adding-a-model.md). Parameters are declared once, with
 * their kinds, and reach `create` as a typed object (`params.maxTerm: number`, no casts);
 * the flag of parameter `maxTerm` is `--max-term`. The codec defaults to the plain-data
 * encoding (plain-codec.ts), labels to the action itself (or `Type(arg, ...)`), and the
 * invariant names are read from the model, so nothing is written twice.
 */
import { ok as assert } from 'node:assert';
import type {
  BugSpec,
  Fairness,
  Invariant,
  Model,
  ModelDefinition,
  Params,
  ParamSpec,
  StateCodec,
  TemporalProperty,
} from './model.js';
import { plainCodec } from './plain-codec.js';
import type { WordWriter } from './words.js';

interface ParamCommon {
  readonly description: string;
}
export interface IntegerParam extends ParamCommon {
  readonly kind: 'integer';
  readonly default: number;
  readonly min?: number;
  readonly max?: number;
}
export interface BooleanParam extends ParamCommon {
  readonly kind: 'boolean';
  readonly default: boolean;
}
export interface ChoiceParam<Choice extends string> extends ParamCommon {
  readonly kind: 'choice';
  readonly default: NoInfer<Choice>;
  readonly choices: readonly Choice[];
}
export type ParamDeclaration = IntegerParam | BooleanParam | ChoiceParam<string>;
export type ParamDeclarations = Readonly<Record<string, ParamDeclaration>>;

/** The typed parameters `create` receives: numbers, booleans and choice literals. */
export type TypedParams<Declarations extends ParamDeclarations> = {
  readonly [Name in keyof Declarations]: Declarations[Name] extends ChoiceParam<infer Choice>
    ? Choice
    : Declarations[Name] extends IntegerParam
      ? number
      : boolean;
};

export const integer = (spec: Omit<IntegerParam, 'kind'>): IntegerParam => ({
  kind: 'integer',
  ...spec,
});
export const boolean = (spec: Omit<BooleanParam, 'kind'>): BooleanParam => ({
  kind: 'boolean',
  ...spec,
});
export function choice<const Choices extends readonly string[]>(spec: {
  readonly description: string;
  readonly default: Choices[number];
  readonly choices: Choices;
}): ChoiceParam<Choices[number]> {
  return { kind: 'choice', ...spec };
}

/** What `create` returns: a model with only the four essential members required. */
export interface ModelSpec<State, Action> {
  initialStates(): readonly State[];
  actions(state: State): readonly Action[];
  next(state: State, action: Action): State | null;
  /** Invariants by name (`{ TypeOK: (state) => ... }`) or as a list. */
  readonly invariants:
    | Readonly<Record<string, (state: State) => boolean>>
    | readonly Invariant<State>[];
  label?(action: Action): string;
  /** `sometimes` properties by name or as a list (Model.sometimes). */
  readonly sometimes?:
    | Readonly<Record<string, (state: State) => boolean>>
    | readonly Invariant<State>[];
  withinBounds?(state: State): boolean;
  readonly codec?: StateCodec<State>;
  writeView?(state: State, out: WordWriter): void;
  variables?(state: State): Record<string, unknown>;
  readonly properties?: readonly TemporalProperty<State>[];
  readonly fairness?: Fairness<State, Action>;
  isTerminal?: Model<State, Action>['isTerminal'];
  successorWords?: Model<State, Action>['successorWords'];
  diagram?: Model<State, Action>['diagram'];
}

export interface BugDeclaration<Declarations extends ParamDeclarations> {
  readonly name: string;
  readonly description: string;
  readonly breaks: readonly string[];
  readonly bounds?: Partial<TypedParams<Declarations>>;
}

export interface ModelDeclaration<
  Declarations extends ParamDeclarations,
  State,
  Action,
  Bugs extends readonly BugDeclaration<Declarations>[] = readonly BugDeclaration<Declarations>[],
> {
  readonly name: string;
  readonly description: string;
  readonly params?: Declarations;
  readonly bugs?: Bugs;
  readonly expectedViolation?: string;
  /** `bug` is one of `bugs` (defineModel refuses any other name before calling). */
  create(
    params: TypedParams<Declarations>,
    bug: Bugs[number]['name'] | undefined,
  ): ModelSpec<State, Action>;
  /**
   * The bounds the model runs with, for the `Checking ...` header, when a preset fixes some
   * (their values) or ignores some (left out); absent: the parameters themselves.
   */
  boundsInUse?(params: TypedParams<Declarations>): Partial<TypedParams<Declarations>>;
}

/** A registry definition that also builds its model from typed parameters. */
export interface DefinedModel<
  Declarations extends ParamDeclarations,
  State,
  Action,
  BugName extends string = string,
> extends ModelDefinition {
  /** The typed parameters at their defaults. */
  readonly defaults: TypedParams<Declarations>;
  build(params: TypedParams<Declarations>, bug?: BugName): Model<State, Action>;
}

/** `maxTerm` -> `max-term`. */
export function flagName(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** "FillBigJug", "Deliver(2, s1)": the action itself, or its type and arguments. */
export function defaultLabel(action: unknown): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'object' && action !== null && 'type' in action) {
    const { type, ...rest } = action as Record<string, unknown>;
    const values = Object.keys(rest)
      .sort()
      .map((key) => JSON.stringify(rest[key]));
    return values.length === 0 ? String(type) : `${String(type)}(${values.join(', ')})`;
  }
  return JSON.stringify(action);
}

function invariantList<State>(invariants: ModelSpec<State, unknown>['invariants']) {
  if (Array.isArray(invariants)) return invariants as readonly Invariant<State>[];
  const byName = invariants as Readonly<Record<string, (state: State) => boolean>>;
  return Object.entries(byName).map(([name, holds]) => ({ name, holds }));
}

/** The full Model the checker runs, with every default filled in. */
export function completeModel<State, Action>(
  name: string,
  spec: ModelSpec<State, Action>,
): Model<State, Action> {
  const { invariants, sometimes, label, codec, ...rest } = spec;
  return {
    ...rest,
    name,
    invariants: invariantList(invariants),
    ...(sometimes ? { sometimes: invariantList(sometimes) } : {}),
    label: label ?? defaultLabel,
    codec: codec ?? plainCodec<State>(),
  };
}

function paramSpecs(declarations: ParamDeclarations): ParamSpec[] {
  return Object.entries(declarations).map(([name, declaration]) => ({
    ...declaration,
    name: flagName(name),
  }));
}

/** Flag-named values (as the CLI resolves them) -> the typed object `create` receives. */
function typedParams<Declarations extends ParamDeclarations>(
  declarations: Declarations,
  params: Params,
): TypedParams<Declarations> {
  const typed: Record<string, unknown> = {};
  for (const [name, declaration] of Object.entries(declarations)) {
    const value = params[flagName(name)] ?? declaration.default;
    const kinds = { integer: 'number', boolean: 'boolean', choice: 'string' } as const;
    const kind = kinds[declaration.kind];
    assert(typeof value === kind, `parameter ${name} must be a ${kind}, got ${String(value)}`);
    typed[name] = value;
  }
  return typed as TypedParams<Declarations>;
}

function flagParams(bounds: Readonly<Record<string, unknown>>): Params {
  const params: Record<string, number | boolean | string> = {};
  for (const [name, value] of Object.entries(bounds)) {
    assert(
      typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string',
      `bound ${name} must be a number, boolean or string`,
    );
    params[flagName(name)] = value;
  }
  return params;
}

/** A bug's bounds as flags, each one a declared parameter of the model. */
function bugSpec<Declarations extends ParamDeclarations>(
  model: string,
  declarations: Declarations,
  bug: BugDeclaration<Declarations>,
): BugSpec {
  for (const name of Object.keys(bug.bounds ?? {})) {
    assert(name in declarations, `${model} bug ${bug.name}: no parameter ${name}`);
  }
  return {
    name: bug.name,
    description: bug.description,
    breaks: bug.breaks,
    ...(bug.bounds ? { bounds: flagParams(bug.bounds) } : {}),
  };
}

/**
 * Declares a model once. The result is a registry `ModelDefinition` (so `shardkv check`
 * and worker threads can build it from plain data) that also builds typed models directly.
 */
export function defineModel<
  State,
  Action,
  const Declarations extends ParamDeclarations = {},
  const Bugs extends readonly BugDeclaration<Declarations>[] = [],
>(
  declaration: ModelDeclaration<Declarations, State, Action, Bugs>,
): DefinedModel<Declarations, State, Action, Bugs[number]['name']> {
  type BugName = Bugs[number]['name'];
  const declarations = (declaration.params ?? {}) as Declarations;
  const defaults = typedParams(declarations, {});
  const bugs = (declaration.bugs ?? []).map((bug) => bugSpec(declaration.name, declarations, bug));
  const isBug = (name: string): name is BugName => bugs.some((bug) => bug.name === name);
  const build = (params: TypedParams<Declarations>, bug?: BugName) => {
    if (bug !== undefined && !isBug(bug)) {
      throw new Error(`${declaration.name} has no bug '${String(bug)}'`);
    }
    return completeModel(declaration.name, declaration.create(params, bug));
  };
  const presetBounds = declaration.boundsInUse;
  const boundsInUse = presetBounds && ((params: Params) =>
    flagParams(presetBounds(typedParams(declarations, params))));
  let invariantNames: readonly string[] | undefined;
  return {
    name: declaration.name,
    description: declaration.description,
    params: paramSpecs(declarations),
    // Read from the model at its defaults, on first use: names are never written twice.
    get invariants() {
      invariantNames ??= build(defaults).invariants.map((invariant) => invariant.name);
      return invariantNames;
    },
    bugs,
    ...(declaration.expectedViolation ? { expectedViolation: declaration.expectedViolation } : {}),
    ...(boundsInUse ? { boundsInUse } : {}),
    defaults,
    build,
    create: (params, bug) => build(typedParams(declarations, params), bug as BugName | undefined),
  };
}
