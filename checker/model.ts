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
import type { DiagramEvent } from './diagram.js';
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
   * Optional: every invariant judged at once, for models whose invariants share their work
   * (the raft.tla preset checks 17 million states). True only when each of `invariants`
   * holds; on false the checker asks them one by one for the name. A model with some
   * invariants set aside (`--continue`) keeps it: true for all is true for any subset.
   */
  invariantsHold?(state: State): boolean;
  /**
   * Stateright's `sometimes` properties: each must hold in some reachable state within the
   * bounds, or an exhaustive search reports it unreached, a failure. They guard against a
   * vacuous model (one whose clients never issue a Put passes every value invariant).
   */
  readonly sometimes?: readonly Invariant<State>[];
  /**
   * The state constraint (TLC's CONSTRAINT): a state outside it is still checked against the
   * invariants but neither counted nor explored. Absent means every state is inside.
   */
  withinBounds?(state: State): boolean;
  /** A state with no successor that legitimately ends a behaviour (not a deadlock). */
  isTerminal?(state: State): boolean;
  readonly codec: StateCodec<State>;
  /**
   * Optional fast path for the checker's hot loop: the successors of the encoded state
   * words[start, end) written straight into `out` (reset before each), with no state object;
   * `emit(actionIndex)` is called once per enabled action, in the order of `actions`. Must
   * agree with `next` and the codec. Used only by models without withinBounds and writeView.
   */
  successorWords?(
    words: Int32Array,
    start: number,
    end: number,
    out: WordWriter,
    emit: (actionIndex: number) => void,
  ): void;
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
  /**
   * Temporal properties checked on the explored state graph under `fairness` (liveness.ts).
   * Absent or empty: `shardkv check` runs no liveness pass.
   */
  readonly properties?: readonly TemporalProperty<State>[];
  /** Which actions are weakly fair (TLC's WF_vars(A)); absent means none is. */
  readonly fairness?: Fairness<State, Action>;
  /**
   * What a step draws in a sequence diagram (`replay --mermaid | --html`): messages delivered
   * and notes for the environment's steps (diagram.ts). Absent: each step is a note.
   */
  diagram?(before: State, action: Action, after: State): readonly DiagramEvent[];
}

/**
 * A liveness property. `eventually`: every fair behaviour reaches a state where `holds` is
 * true (TLA+'s <>Q). `leadsTo`: whenever `trigger` holds, `holds` holds then or later
 * (P ~> Q). A behaviour may stutter forever in any state where no weakly fair action is
 * enabled, so a terminal state where Q is false violates `eventually Q`.
 */
export type TemporalProperty<State> =
  | {
      readonly name: string;
      readonly kind: 'eventually';
      holds(state: State): boolean;
    }
  | {
      readonly name: string;
      readonly kind: 'leadsTo';
      trigger(state: State): boolean;
      holds(state: State): boolean;
    };

/**
 * Weak fairness of action classes. A class is a string naming one fair action family for
 * one actor or message ("RMPrepare(r1)", "Deliver(s1->s2 AppendEntries t2)"): a cycle in
 * which some class is enabled in every state but never taken is not a fair behaviour. A
 * class must name what it acts on, never a position that shifts (an index into a bag).
 */
export interface Fairness<State, Action> {
  /**
   * The weakly fair class of the action in this state, or null when it need not be taken.
   * The state is there for actions that name a message by its place in a bag: the class
   * must name the message itself.
   */
  weakClass?(action: Action, state: State): string | null;
  /** Or: an action whose label starts with one of these is weakly fair, its label its class. */
  readonly weakLabelPrefixes?: readonly string[];
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
  /**
   * The absolute path of the module it was loaded from (load-model.ts), for a model outside
   * the registry: worker threads and `replay` load it from there. Absent for registered ones.
   */
  readonly modulePath?: string;
  /** Builds the model; `bug` is one of `bugs` or undefined. Must be deterministic. */
  create(params: Params, bug: string | undefined): AnyModel;
  /**
   * Optional: the bounds the model actually runs with, for the `Checking ...` header, when a
   * preset fixes some (their values) or ignores some (left out). Absent: `params` themselves.
   */
  boundsInUse?(params: Params): Params;
}
