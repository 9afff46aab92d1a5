/**
 * The Wing–Gong linearizability search with Lowe's memoisation, as Porcupine implements it
 * (Wing & Gong 1993; Lowe, "Testing for linearizability", 2017; Athalye's Porcupine).
 *
 * The history becomes one doubly linked list of call and return events in time order. The
 * search walks it: at a call event it tries to linearise that operation now (the model must
 * accept it, and the (linearised set, state) pair must be new); if so it lifts the call and its
 * return out of the list and starts again from the head. Reaching a return event means the
 * operation it closes should have been linearised already: backtrack by undoing the most
 * recent linearisation and trying the next candidate after it. An empty list is a witness;
 * backtracking from an empty stack is a proof that no linearisation exists.
 *
 * Every loop is bounded by the finite number of (set, state) configurations, and a deadline.
 */
import { assert } from '../../spec/assert.js';
import type { Operation, SequentialModel } from './model.js';
import { SeenSet } from './seen-set.js';

export type PartitionVerdict = 'linearizable' | 'not-linearizable' | 'unknown';

export interface PartitionResult {
  readonly verdict: PartitionVerdict;
  /**
   * Indexes into the partition's operations: the full linearisation when linearizable,
   * otherwise the longest linearisable prefix the search found.
   */
  readonly prefix: readonly number[];
  /** When not linearizable: the operation that cannot follow the prefix (earliest return). */
  readonly failing?: number;
  /** Configurations memoised (the search's work). */
  readonly configurations: number;
}

/** How often (in search steps) the deadline is read: a clock read per step would dominate. */
const deadlineCheckInterval = 1 << 12;

interface EventList {
  readonly next: Int32Array;
  readonly previous: Int32Array;
  /** The sentinel before the first event. */
  readonly head: number;
}

/**
 * Event nodes: call of operation i is node i, its return node count + i, the head 2 * count.
 * Sorted by time; at equal times calls come first, so touching operations count as concurrent
 * (the permissive reading, as Porcupine's): a verdict of not-linearizable never rests on a tie.
 */
function buildEventList(operations: readonly Operation<unknown, unknown>[]): EventList {
  const count = operations.length;
  const events: number[] = [];
  for (let node = 0; node < 2 * count; node++) events.push(node);
  const time = (node: number): number => node < count
    ? operations[node]!.call
    : operations[node - count]!.return;
  events.sort((left, right) => {
    const difference = time(left) - time(right);
    if (difference !== 0 && !Number.isNaN(difference)) return difference;
    return left - right;
  });
  const head = 2 * count;
  const next = new Int32Array(2 * count + 1).fill(-1);
  const previous = new Int32Array(2 * count + 1).fill(-1);
  let last = head;
  for (const node of events) {
    next[last] = node;
    previous[node] = last;
    last = node;
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

export function checkPartition<State, Input, Output>(
  model: SequentialModel<State, Input, Output>,
  operations: readonly Operation<Input, Output>[],
  deadline: number,
): PartitionResult {
  const count = operations.length;
  const { next, previous, head } = buildEventList(operations);
  const words = Math.max(1, Math.ceil(count / 32));
  const linearised = new Uint32Array(words);
  const keysA = zobristKeys(count, 0x2545f491);
  const keysB = zobristKeys(count, 0x9e3779b9);
  const seen = new SeenSet<State>(words, (left, right) => model.equal(left, right));
  const stackOperations = new Int32Array(count);
  const stackStates: State[] = new Array<State>(count);
  const longest = new Int32Array(count);
  let longestLength = 0;
  /** Stack entries below this depth are unchanged since `longest` was last copied. */
  let unchangedDepth = 0;
  let depth = 0;
  let state = model.init();
  let hashA = 0;
  let hashB = 0;
  let steps = 0;
  let node = next[head]!;
  while (next[head] !== -1) {
    if (++steps % deadlineCheckInterval === 0 && performance.now() > deadline) {
      return { verdict: 'unknown', prefix: Array.from(longest.subarray(0, longestLength)),
        configurations: seen.size };
    }
    if (node < count) {
      const operation = operations[node]!;
      const after = model.step(state, operation.input, operation.output);
      if (after !== undefined) {
        const word = node >>> 5;
        const bit = 1 << (node & 31);
        linearised[word]! |= bit;
        const stateHash = model.hash(after) | 0;
        const candidateA = hashA ^ keysA[node]!;
        const candidateB = hashB ^ keysB[node]!;
        if (seen.insert(candidateA ^ Math.imul(stateHash, 0x9e3779b1), candidateB ^ stateHash,
          linearised, after)) {
          stackOperations[depth] = node;
          stackStates[depth] = state;
          depth++;
          state = after;
          hashA = candidateA;
          hashB = candidateB;
          lift(next, previous, node, count + node);
          if (depth > longestLength) {
            longest.set(stackOperations.subarray(unchangedDepth, depth), unchangedDepth);
            longestLength = depth;
            unchangedDepth = depth;
          }
          node = next[head]!;
          continue;
        }
        linearised[word]! &= ~bit;
      }
      node = next[node]!;
      continue;
    }
    if (depth === 0) {
      return notLinearizable(operations, longest.subarray(0, longestLength), seen.size);
    }
    depth--;
    if (depth < unchangedDepth) unchangedDepth = depth;
    const undone = stackOperations[depth]!;
    state = stackStates[depth]!;
    hashA ^= keysA[undone]!;
    hashB ^= keysB[undone]!;
    linearised[undone >>> 5]! &= ~(1 << (undone & 31));
    unlift(next, previous, undone, count + undone);
    node = next[undone]!;
  }
  assert(depth === count, 'a witness linearises every operation');
  return { verdict: 'linearizable', prefix: Array.from(stackOperations), configurations: seen.size };
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
 * The minimal explanation: the longest linearisable prefix and the operation that cannot follow
 * it. Every extension of the longest prefix by one operation was rejected by the model (a longer
 * prefix would have been recorded), so the unlinearised operation that returns first, which
 * must come next before anything called after its return, is one the model rejects here.
 */
function notLinearizable(
  operations: readonly Operation<unknown, unknown>[],
  prefix: Int32Array,
  configurations: number,
): PartitionResult {
  const inPrefix = new Uint8Array(operations.length);
  for (const index of prefix) inPrefix[index] = 1;
  let failing = -1;
  for (let index = 0; index < operations.length; index++) {
    if (inPrefix[index] === 1) continue;
    if (failing === -1 || operations[index]!.return < operations[failing]!.return) failing = index;
  }
  assert(failing !== -1, 'a history that is not linearizable has an operation left over');
  return { verdict: 'not-linearizable', prefix: Array.from(prefix), failing, configurations };
}
