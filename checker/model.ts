/**
 * The interface between a protocol and the checker (DESIGN §4).
 *
 * A model is a pure description of a state space: initial states, the actions enabled in a
 * state (in a deterministic order), a successor function, named invariants and an optional
 * state constraint. The checker never looks inside a state: it stores states through the
 * model's codec and fingerprints the words the model writes for the canonical view, so a
 * model decides what "the same state" means (symmetry reduction included).
 *
 * Paths are arrays of action indexes into `actions(state)`: a counterexample is rebuilt by
 * re-executing from an initial state, as Stateright's `Path` does.
 */
import type { WordReader, WordWriter } from './words.js';

/** A named safety property that must hold in every reachable state. */
export interface Invariant<State> {
  readonly name: string;
  holds(state: State): boolean;
  /** Optional: why the invariant fails in `state` (the witness), e.g. "s1 and s3 lead term 2". */
  explain?(state: State): string;
}

/** Encodes a state into 32-bit words and back; decode(encode(s)) must equal s. */
export interface StateCodec<State> {
  encode(state: State, out: WordWriter): void;
  decode(input: WordReader): State;
}

export interface Model<State, Action> {
  readonly name: string;
  initialStates(): readonly State[];
  /**
   * Candidate actions in a deterministic order. An action whose `next` returns null is simply
   * not enabled; listing it costs nothing but keeps indexes stable.
   */
  actions(state: State): readonly Action[];
  /** The successor of `state` under `action`, or null when the action is not enabled. */
  next(state: State, action: Action): State | null;
  /** A short readable label ("Timeout(s1)", "FillBig"). */
  label(action: Action): string;
  readonly invariants: readonly Invariant<State>[];
  /**
   * The state constraint (TLC's CONSTRAINT): a state outside it is still checked against the
   * invariants but neither counted nor explored. Absent means every state is inside.
   */
  withinBounds?(state: State): boolean;
  readonly codec: StateCodec<State>;
  /**
   * Writes the canonical view that is fingerprinted: two states with the same view are the
   * same state to the checker. Defaults to the codec's encoding. Symmetry reduction lives
   * here: write the least encoding over the permutations of interchangeable ids.
   */
  writeView?(state: State, out: WordWriter): void;
  /**
   * The state as named variables, for traces: what changed between steps, and ITF output.
   * Defaults to the state itself when it is a plain object.
   */
  variables?(state: State): Record<string, unknown>;
}

/** A model with its types erased, as the registry and the CLI hold it. */
export type AnyModel = Model<unknown, unknown>;

export type ParamValue = number | boolean | string;
export type Params = Readonly<Record<string, ParamValue>>;

/** One bound or option of a model, as `shardkv models` lists it and the CLI parses it. */
export interface ParamSpec {
  /** The flag's name without dashes, e.g. "max-term". */
  readonly name: string;
  readonly description: string;
  readonly default: ParamValue;
  /** Integers are checked against min/max; choices against `choices`. */
  readonly kind: 'integer' | 'boolean' | 'choice';
  readonly min?: number;
  readonly max?: number;
  readonly choices?: readonly string[];
}

/** A known bug: a named mutation of the spec that the checker must find. */
export interface BugSpec {
  readonly name: string;
  readonly description: string;
  /** Invariants a counterexample may violate (DESIGN §3's catalog). */
  readonly breaks: readonly string[];
  /** Bounds that replace the model's defaults when this bug is checked (user flags still win). */
  readonly bounds?: Params;
}

/** What the registry knows of a model: enough to list it, parse its flags and build it. */
export interface ModelDefinition {
  readonly name: string;
  readonly description: string;
  readonly params: readonly ParamSpec[];
  readonly invariants: readonly string[];
  readonly bugs: readonly BugSpec[];
  /**
   * An invariant that fails on purpose at the default bounds (DieHard's NotSolved: its
   * counterexample is the puzzle's answer). `check-all` reports that violation as expected.
   */
  readonly expectedViolation?: string;
  /** Builds the model; `bug` is one of `bugs` or undefined. Must be deterministic. */
  create(params: Params, bug: string | undefined): AnyModel;
}
