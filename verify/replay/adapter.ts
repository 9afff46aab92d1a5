/**
 * What a runtime replay needs of one model: how to bring the real nodes to the trace's
 * initial state, which runtime input each action of the model stands for, and how to read
 * the model's variables back out of the running nodes. runtime-replay.ts drives any adapter
 * the same way; raft-adapter.ts and migration-adapter.ts are the two there are.
 */

/** The runtime could not take a step the trace schedules: why, in one sentence. */
export class RuntimeDivergence extends Error {}

export interface RuntimeAdapter<State, Action> {
  /** Variables the runtime holds too: compared with the spec's after every step. */
  readonly comparedVariables: readonly string[];
  /**
   * The invariants whose every variable comes from the runtime (the others read the model's
   * environment bookkeeping, which a runtime does not have): evaluated after every step.
   */
  readonly evaluatedInvariants: readonly string[];
  /**
   * The model's actions the runtime cannot be driven by, by action type, with the reason:
   * `shardkv mbt` leaves them out of its walks and says so.
   */
  readonly undriven: Readonly<Record<string, string>>;
  /**
   * Why the runtime cannot take `action` in the spec's state `before` although the spec can
   * (mbt's walks leave it out there), or null. `refusals` says when, one line each.
   */
  refusal?(action: Action, before: State): string | null;
  readonly refusals?: readonly string[];
  /** Starts the nodes and brings them to the trace's initial state. */
  setUp(): Promise<void>;
  /**
   * Gives the runtime the input `action` stands for and waits until it settled. Returns a
   * note for the step's line (what the runtime did beyond the action), or throws a
   * RuntimeDivergence when the runtime cannot take the step. `before` and `after` are the
   * spec's states around the action.
   */
  perform(action: Action, before: State, after: State): Promise<string | null>;
  /**
   * Without the bug the correct code may send other messages than the trace's (a vote refused
   * instead of granted): the enabled action that plays the recorded one's part in the
   * schedule (the same kind of message on the same link), or undefined.
   */
  counterpart(recorded: unknown, enabled: readonly Action[]): Action | undefined;
  /** The model's state as the runtime holds it: runtime values for every compared variable. */
  observe(expected: State): State;
  /** Stops every node (crash: nothing is left running). */
  tearDown(): void;
}
