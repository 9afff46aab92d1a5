/**
 * The Wing–Gong linearizability search with Lowe's memoisation, as Porcupine implements it
 * (Wing & Gong 1993; Lowe, "Testing for linearizability", 2017; Athalye's Porcupine).
 *
 * The history becomes one doubly linked list of call and return events in time order. The
 * search walks it: at a call event it tries to linearize that operation now (the model must
 * accept it, and the (linearized set, state) pair must be new); if so it lifts the call and its
 * return out of the list and starts again from the head. Reaching a return event means the
 * operation it closes should have been linearized already: backtrack by undoing the most
 * recent linearization and trying the next candidate after it. An empty list is a witness;
 * backtracking from an empty stack is a proof that no linearization exists.
 *
 * One reduction beyond Porcupine: a read-only candidate (`model.readOnly`) that the model
 * accepts in the current state is taken at once and is the only choice tried in that
 * configuration ("forced"). That loses nothing: it is a candidate, so no unlinearized
 * operation returned before its call, and any linearization that places it later can place it
 * here instead, since it changes no state anywhere. (A write that merely leaves this state
 * unchanged does not qualify: moved earlier, it would change a later state.)
 *
 * Every loop is bounded by the finite number of (set, state) configurations, and a deadline.
 */
import { ok as assert } from 'node:assert';
import type { Operation, SequentialModel } from './model.js';
import { SeenSet } from './seen-set.js';

export type PartitionVerdict = 'linearizable' | 'not-linearizable' | 'unknown';
/** Why a search stopped undecided: its deadline, or its memory bound (SeenSet's `bytesMax`). */
export type UnknownReason = 'time-limit' | 'memory-bound';

export interface PartitionResult {
  readonly verdict: PartitionVerdict;
  /** When unknown: what stopped the search. */
  readonly reason?: UnknownReason;
  /**
   * Indexes into the partition's operations: the full linearization when linearizable,
   * otherwise the longest linearizable prefix the search found.
   */
  readonly prefix: readonly number[];
  /** When not linearizable: the operation that cannot follow the prefix (earliest return). */
  readonly failing?: number;
  /** Configurations memoised (the search's work). */
  readonly configurations: number;
}

/**
 * How often (in search steps) the deadline and the model's memory are read: a clock read per
 * step would dominate.
 */
const deadlineCheckInterval = 1 << 12;

interface EventList {
  readonly next: Int32Array;
  readonly previous: Int32Array;
  /** The sentinel before the first event. */
  readonly head: number;
}

/**
 * Operations are numbered by position in return order (ties by index): then the first return
 * event left in the list always belongs to the lowest unlinearized position, which is what
 * lets SeenSet store a linearized set as a settled count plus a short window.
 */
function returnOrder(operations: readonly Operation<unknown, unknown>[]): Int32Array {
  // Plain loops here and below: TypedArray.from with a map function was a tenth of a check.
  const returns = new Float64Array(operations.length);
  for (let index = 0; index < operations.length; index++) {
    returns[index] = operations[index]!.return;
  }
  return sortedIndexes(returns);
}

/**
 * Indexes sorted by key, ties by index. Histories usually arrive sorted (by call or by
 * return), so a linear check skips the sort, which otherwise was a third of an easy check.
 */
function sortedIndexes(keys: Float64Array): Int32Array {
  const indexes = new Int32Array(keys.length);
  let sorted = true;
  for (let index = 0; index < keys.length; index++) {
    indexes[index] = index;
    if (index > 0 && keys[index - 1]! > keys[index]!) sorted = false;
  }
  // Infinity - Infinity is NaN, which is falsy: equal unknown returns fall back to the index.
  if (sorted) return indexes;
  return indexes.sort((left, right) => keys[left]! - keys[right]! || left - right);
}

/**
 * Event nodes: the call of position p is node p, its return count + p, the head 2 * count.
 * In time order, a merge of the calls (sorted by call) and the returns (in position order);
 * at equal times calls come first, so touching operations count as concurrent (the permissive
 * reading, as Porcupine's): a verdict of not-linearizable never rests on a tie.
 */
function buildEventList(
  operations: readonly Operation<unknown, unknown>[],
  order: Int32Array,
): EventList {
  const count = operations.length;
  const calls = new Float64Array(count);
  for (let position = 0; position < count; position++) {
    calls[position] = operations[order[position]!]!.call;
  }
  const callOrder = sortedIndexes(calls);
  const head = 2 * count;
  const next = new Int32Array(2 * count + 1).fill(-1);
  const previous = new Int32Array(2 * count + 1).fill(-1);
  let last = head;
  let call = 0;
  for (let position = 0; position < count; position++) {
    const returned = operations[order[position]!]!.return;
    while (call < count && calls[callOrder[call]!]! <= returned) {
      const node = callOrder[call++]!;
      next[last] = node;
      previous[node] = last;
      last = node;
    }
    next[last] = count + position;
    previous[count + position] = last;
    last = count + position;
  }
  return { next, previous, head };
}

/** A deterministic xorshift stream for the Zobrist keys (results must not depend on luck). */
function zobristKeys(count: number, seed: number): Int32Array {
  const keys = new Int32Array(count);
  let value = seed | 0 || 1;
  for (let index = 0; index < count; index++) {
    value ^= value << 13;
    value ^= value >>> 17;
    value ^= value << 5;
    keys[index] = value;
  }
  return keys;
}

/**
 * The linearized set as SeenSet stores it: positions [0, settled) and a sorted window of later
 * ones. Changes are undone in stack order.
 */
class LinearizedSet {
  settled = 0;
  readonly window: Int32Array;
  windowLength = 0;

  constructor(count: number) {
    this.window = new Int32Array(count);
  }

  /** Adds `position`; returns the settled count before, for `remove`. */
  add(position: number): number {
    const before = this.settled;
    const window = this.window;
    if (position !== before) {
      let index = this.windowLength++;
      for (; index > 0 && window[index - 1]! > position; index--) {
        window[index] = window[index - 1]!;
      }
      window[index] = position;
      return before;
    }
    let settled = before + 1;
    let consumed = 0;
    while (consumed < this.windowLength && window[consumed] === settled) {
      consumed++;
      settled++;
    }
    if (consumed > 0) {
      window.copyWithin(0, consumed, this.windowLength);
      this.windowLength -= consumed;
    }
    this.settled = settled;
    return before;
  }

  /** Undoes the latest `add(position)`, which returned `settledBefore`. */
  remove(position: number, settledBefore: number): void {
    const window = this.window;
    if (position !== settledBefore) {
      let index = 0;
      while (window[index] !== position) index++;
      window.copyWithin(index, index + 1, this.windowLength);
      this.windowLength--;
      return;
    }
    // Positions settledBefore + 1 .. settled - 1 came from the window's front: put them back.
    const restored = this.settled - settledBefore - 1;
    if (restored > 0) {
      window.copyWithin(restored, 0, this.windowLength);
      for (let index = 0; index < restored; index++) window[index] = settledBefore + 1 + index;
      this.windowLength += restored;
    }
    this.settled = settledBefore;
  }
}

/**
 * The longest stack of linearized positions seen so far. Copying the whole stack at each new
 * maximum would be quadratic; only the part pushed since the last copy is copied.
 */
class LongestPrefix {
  private readonly longest: Int32Array;
  private length = 0;
  /** Stack entries below this depth are unchanged since the last copy. */
  private unchangedDepth = 0;

  constructor(count: number) {
    this.longest = new Int32Array(count);
  }

  positions(): Int32Array {
    return this.longest.subarray(0, this.length);
  }

  pushed(stack: Int32Array, depth: number): void {
    if (depth <= this.length) return;
    for (let index = this.unchangedDepth; index < depth; index++) {
      this.longest[index] = stack[index]!;
    }
    this.length = depth;
    this.unchangedDepth = depth;
  }

  popped(depth: number): void {
    if (depth < this.unchangedDepth) this.unchangedDepth = depth;
  }
}

export function checkPartition<State, Input, Output>(
  model: SequentialModel<State, Input, Output>,
  operations: readonly Operation<Input, Output>[],
  deadline: number,
  /** A table to reuse (cleared here): growing a fresh one per partition cost a fifth of a run. */
  seen: SeenSet<State> = new SeenSet<State>(model),
  /** The bound on the memo table and the model's own tables together (`model.bytes`). */
  bytesMax = Infinity,
): PartitionResult {
  const count = operations.length;
  const order = returnOrder(operations);
  const { next, previous, head } = buildEventList(operations, order);
  const linearized = new LinearizedSet(count);
  const keysA = zobristKeys(count, 0x2545f491);
  const keysB = zobristKeys(count, 0x9e3779b9);
  seen.clear();
  const stackPositions = new Int32Array(count);
  const stackSettled = new Int32Array(count);
  const stackForced = new Uint8Array(count);
  const readOnly = new Uint8Array(count);
  if (model.readOnly) {
    for (let position = 0; position < count; position++) {
      readOnly[position] = model.readOnly(operations[order[position]!]!.input) ? 1 : 0;
    }
  }
  const stackStates: State[] = new Array<State>(count);
  const longest = new LongestPrefix(count);
  let depth = 0;
  let state = model.init();
  let hashA = 0;
  let hashB = 0;
  let steps = 0;
  let node = next[head]!;
  while (next[head] !== -1) {
    // Read at step 0 too, so that optimised code has type feedback for this branch.
    if ((steps++ & (deadlineCheckInterval - 1)) === 0) {
      if (performance.now() > deadline) return unknown('time-limit', order, longest, seen.size);
      if (seen.bytes + (model.bytes?.() ?? 0) > bytesMax) {
        return unknown('memory-bound', order, longest, seen.size);
      }
    }
    if (node < count) {
      const operation = operations[order[node]!]!;
      const after = model.step(state, operation.input, operation.output);
      if (after === undefined) {
        node = next[node]!;
        continue;
      }
      const keeps = readOnly[node] === 1;
      const settledBefore = linearized.add(node);
      const stateHash = model.hash(after) | 0;
      const candidateA = hashA ^ keysA[node]!;
      const candidateB = hashB ^ keysB[node]!;
      if (seen.insert(candidateA ^ Math.imul(stateHash, 0x9e3779b1), candidateB ^ stateHash,
        linearized.settled, linearized.window, linearized.windowLength, after)) {
        if (seen.exhausted) return unknown('memory-bound', order, longest, seen.size);
        stackPositions[depth] = node;
        stackSettled[depth] = settledBefore;
        stackForced[depth] = keeps ? 1 : 0;
        stackStates[depth] = state;
        depth++;
        state = after;
        hashA = candidateA;
        hashB = candidateB;
        lift(next, previous, node, count + node);
        longest.pushed(stackPositions, depth);
        node = next[head]!;
        continue;
      }
      linearized.remove(node, settledBefore);
      if (!keeps) {
        node = next[node]!;
        continue;
      }
      // A forced step whose configuration already failed: this configuration fails too.
    }
    // Backtrack. Undoing a forced step undoes the step below it as well: the forced step was
    // the only choice worth trying in its configuration.
    for (let forced = true; forced;) {
      if (depth === 0) return notLinearizable(order, longest.positions(), seen.size);
      depth--;
      longest.popped(depth);
      const undone = stackPositions[depth]!;
      state = stackStates[depth]!;
      hashA ^= keysA[undone]!;
      hashB ^= keysB[undone]!;
      linearized.remove(undone, stackSettled[depth]!);
      unlift(next, previous, undone, count + undone);
      forced = stackForced[depth] === 1;
      node = next[undone]!;
    }
  }
  assert(depth === count && linearized.settled === count, 'a witness linearizes every operation');
  return { verdict: 'linearizable', prefix: toIndexes(order, stackPositions),
    configurations: seen.size };
}

function unknown(reason: UnknownReason, order: Int32Array, longest: LongestPrefix,
  configurations: number): PartitionResult {
  return { verdict: 'unknown', reason, prefix: toIndexes(order, longest.positions()),
    configurations };
}

function toIndexes(order: Int32Array, positions: Int32Array): number[] {
  const indexes = new Array<number>(positions.length);
  for (let index = 0; index < positions.length; index++) indexes[index] = order[positions[index]!]!;
  return indexes;
}

function lift(next: Int32Array, previous: Int32Array, call: number, ret: number): void {
  next[previous[call]!] = next[call]!;
  if (next[call] !== -1) previous[next[call]!] = previous[call]!;
  next[previous[ret]!] = next[ret]!;
  if (next[ret] !== -1) previous[next[ret]!] = previous[ret]!;
}

/** Undoes `lift` in reverse order: the removed nodes still hold their old neighbours. */
function unlift(next: Int32Array, previous: Int32Array, call: number, ret: number): void {
  next[previous[ret]!] = ret;
  if (next[ret] !== -1) previous[next[ret]!] = ret;
  next[previous[call]!] = call;
  if (next[call] !== -1) previous[next[call]!] = call;
}

/**
 * The minimal explanation: the longest linearizable prefix and the operation that cannot follow
 * it. Every extension of the longest prefix by one operation was rejected by the model (a longer
 * prefix would have been recorded), so the unlinearized operation that returns first, which
 * must come next before anything called after its return, is one the model rejects here.
 */
function notLinearizable(
  order: Int32Array,
  prefix: Int32Array,
  configurations: number,
): PartitionResult {
  const inPrefix = new Uint8Array(order.length);
  for (const position of prefix) inPrefix[position] = 1;
  const failing = inPrefix.indexOf(0);
  assert(failing !== -1, 'a history that is not linearizable has an operation left over');
  return { verdict: 'not-linearizable', prefix: toIndexes(order, prefix),
    failing: order[failing]!, configurations };
}
