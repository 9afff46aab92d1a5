/**
 * Checking a whole history: split it with the model's partition (per key for the KV store),
 * search each part, and combine. A history is linearizable exactly when every part is
 * (linearizability is local: Herlihy & Wing 1990, Theorem 1). A not-linearizable part decides
 * the history at once; an undecided part (time limit, memory bound) makes the whole `unknown`,
 * never a pass.
 */
import type { Operation, Partition, SequentialModel } from './model.js';
import { checkPartition, type PartitionResult, type PartitionVerdict } from './search.js';
import { SeenSet } from './seen-set.js';

export interface PartitionReport<Input, Output> extends Partition<Input, Output> {
  /** Undefined when the part was not searched (another part already failed). */
  readonly result: PartitionResult | undefined;
}

export interface CheckReport<Input, Output> {
  readonly verdict: PartitionVerdict;
  /** In the model's partition order. */
  readonly partitions: readonly PartitionReport<Input, Output>[];
  /** The index of the part that decided a non-linearizable or unknown verdict. */
  readonly decidingPartition?: number;
}

export interface CheckOptions {
  /** Milliseconds on `performance.now()`'s clock after which the search gives up. */
  readonly deadline: number;
  /** Bytes of search tables (memo and model) past which a part's search gives up. */
  readonly bytesMax?: number;
}

export function checkOperations<State, Input, Output>(
  model: SequentialModel<State, Input, Output>,
  operations: readonly Operation<Input, Output>[],
  options: CheckOptions,
): CheckReport<Input, Output> {
  const partitions = model.partition ? model.partition(operations) : [{ name: '', operations }];
  const results: (PartitionResult | undefined)[] = partitions.map(() => undefined);
  // Small parts first: a violation in a small part is found before a large part is searched.
  const order = partitions.map((_, index) => index)
    .sort((left, right) => partitions[left]!.operations.length
      - partitions[right]!.operations.length || left - right);
  let undecided: number | undefined;
  const bytesMax = options.bytesMax ?? Infinity;
  const seen = new SeenSet<State>(model, bytesMax);
  for (const index of order) {
    const result = checkPartition(model, partitions[index]!.operations, options.deadline, seen,
      bytesMax);
    results[index] = result;
    if (result.verdict === 'not-linearizable') {
      return { verdict: result.verdict, partitions: withResults(partitions, results),
        decidingPartition: index };
    }
    if (result.verdict === 'unknown' && undecided === undefined) undecided = index;
  }
  const report = { partitions: withResults(partitions, results) };
  return undecided === undefined
    ? { verdict: 'linearizable', ...report }
    : { verdict: 'unknown', ...report, decidingPartition: undecided };
}

function withResults<Input, Output>(
  partitions: readonly Partition<Input, Output>[],
  results: readonly (PartitionResult | undefined)[],
): PartitionReport<Input, Output>[] {
  return partitions.map((partition, index) => ({ ...partition, result: results[index] }));
}

/** Replays the model over a linearization prefix: the states after each step. */
export function statesAlong<State, Input, Output>(
  model: SequentialModel<State, Input, Output>,
  operations: readonly Operation<Input, Output>[],
  prefix: readonly number[],
): State[] {
  const states: State[] = [];
  let state = model.init();
  for (const index of prefix) {
    const operation = operations[index]!;
    const after = model.step(state, operation.input, operation.output);
    if (after === undefined) {
      throw new Error(`prefix step ${states.length} is rejected by the model`);
    }
    states.push(after);
    state = after;
  }
  return states;
}
