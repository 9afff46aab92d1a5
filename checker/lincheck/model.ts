/**
 * The sequential specification a history is judged against (Herlihy & Wing's linearizability):
 * a history is linearizable when its operations can be put in one total order that respects
 * real time (an operation that returned before another was called comes first) and that the
 * sequential model accepts step by step, output included.
 *
 * The interface follows Porcupine's `Model`: `init`, `step`, `equal`, `hash`, and `partition`
 * for models whose state splits into independent parts (P-compositionality: a KV history is
 * linearizable exactly when each key's sub-history is).
 */

/** One operation of a history, ready for the search. */
export interface Operation<Input, Output> {
  /** The operation's index in the history it came from (its line order). */
  readonly id: number;
  readonly client: string;
  readonly input: Input;
  /** Undefined when the outcome is unknown: the step then constrains no output. */
  readonly output: Output | undefined;
  readonly call: number;
  /** +Infinity when the outcome is unknown: it may take effect at any moment after `call`. */
  readonly return: number;
}

export interface SequentialModel<State, Input, Output> {
  readonly name: string;
  /** The state before any operation. */
  init(): State;
  /**
   * The state after `input` when the model can produce `output` from `state`, or undefined
   * when it cannot (`output` undefined: any output is acceptable). Must not mutate `state`.
   */
  step(state: State, input: Input, output: Output | undefined): State | undefined;
  /**
   * True when `input` never changes any state (a read): whenever `step` accepts it, it returns
   * an equal state. The search then takes such an operation as soon as it fits (see search.ts).
   * A write that happens to leave one state unchanged is not read-only. Absent: none is.
   */
  readOnly?(input: Input): boolean;
  /** Equal states must have equal hashes; the hash is a 32-bit integer. */
  hash(state: State): number;
  equal(left: State, right: State): boolean;
  /** Independent sub-histories with a name each (a key); absent: one partition, named "". */
  partition?(
    operations: readonly Operation<Input, Output>[],
  ): readonly Partition<Input, Output>[];
  /** Bytes the model's own tables hold (states interned by the model); absent: none. */
  bytes?(): number;
  describeOperation(operation: Operation<Input, Output>): string;
  describeState(state: State): string;
}

export interface Partition<Input, Output> {
  readonly name: string;
  readonly operations: readonly Operation<Input, Output>[];
}
