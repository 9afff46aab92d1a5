/**
 * The canonical order of the states of a BFS level, which makes the parallel search's
 * counterexample the one a single thread finds (parallel-bfs.ts).
 *
 * Every state is reached first, in one-thread BFS, along its least path: the least initial
 * index, then the least action indexes, compared in order. Within a level that order is the
 * order of the keys (rank of the parent in its level, action index), so a worker keeps, for
 * each state of the level it builds, the least key that reaches it; once the level is
 * complete every worker sorts its keys, and a state's rank is the number of lesser keys in
 * all workers' sorted lists together. Keys are distinct: one parent and one action give one
 * successor.
 */
import { ok as assert } from 'node:assert';

/** Actions a state may list at most: the action index is the low part of a key. */
export const actionSlots = 2 ** 20;
const rankLimit = 2 ** 31;

export function pathKey(parentRank: number, actionIndex: number): number {
  assert(actionIndex >= 0 && actionIndex < actionSlots, 'too many actions for a path key');
  assert(parentRank >= 0 && parentRank < rankLimit, 'level too wide for a path key');
  return parentRank * actionSlots + actionIndex;
}

/** Stable counting sort of `input` (indexes) by `digit[index]`, a value in [0, max]. */
function countingSort(input: Int32Array, digit: Int32Array, max: number): Int32Array {
  const counts = new Int32Array(max + 2);
  for (let position = 0; position < input.length; position++) {
    counts[digit[input[position]!]! + 1]!++;
  }
  for (let value = 1; value <= max + 1; value++) counts[value]! += counts[value - 1]!;
  const output = new Int32Array(input.length);
  for (let position = 0; position < input.length; position++) {
    const index = input[position]!;
    output[counts[digit[index]!]!++] = index;
  }
  return output;
}

/**
 * The indexes 0..count-1 in the order of their keys: by action index, then, stably, by parent
 * rank. Linear, where a comparison sort of indexes or a binary search per state is not.
 */
function sortByKey(keys: Float64Array, count: number): Int32Array {
  const parentRanks = new Int32Array(count);
  const actions = new Int32Array(count);
  const identity = new Int32Array(count);
  let maxRank = 0;
  let maxAction = 0;
  for (let index = 0; index < count; index++) {
    const key = keys[index]!;
    const parentRank = Math.floor(key / actionSlots);
    parentRanks[index] = parentRank;
    actions[index] = key - parentRank * actionSlots;
    identity[index] = index;
    if (parentRank > maxRank) maxRank = parentRank;
    if (actions[index]! > maxAction) maxAction = actions[index]!;
  }
  return countingSort(countingSort(identity, actions, maxAction), parentRanks, maxRank);
}

export class LevelOrder {
  /** Local id of the first state of the level being built. */
  upcomingStart = 0;
  upcomingCount = 0;
  private keys = new Float64Array(1 << 12);
  private offsets = new Int32Array(1 << 12);
  /** The last level built, whose keys wait for every worker's list to become ranks. */
  private finishedKeys = new Float64Array(1 << 12);
  private finishedStart = 0;
  private finishedCount = 0;
  /** The finished level's indexes in key order. */
  private finishedOrder: Int32Array = new Int32Array(0);
  /** Local id of the first state of the level being expanded, and their ranks. */
  private currentStart = 0;
  private ranks = new Int32Array(0);

  /** Records the next state of the level being built: its key and its queue offset. */
  add(key: number, offset: number): void {
    if (this.upcomingCount === this.keys.length) this.grow();
    this.keys[this.upcomingCount] = key;
    this.offsets[this.upcomingCount] = offset;
    this.upcomingCount++;
  }

  inUpcoming(localId: number): boolean {
    return localId >= this.upcomingStart;
  }

  keyOf(localId: number): number {
    assert(this.inUpcoming(localId), 'a key belongs to the level being built');
    return this.keys[localId - this.upcomingStart]!;
  }

  offsetOf(localId: number): number {
    return this.offsets[localId - this.upcomingStart]!;
  }

  /** A lesser key for a state of the level being built, and where its entry now lies. */
  lower(localId: number, key: number, offset: number): void {
    assert(key < this.keyOf(localId), 'keys only decrease');
    this.keys[localId - this.upcomingStart] = key;
    this.offsets[localId - this.upcomingStart] = offset;
  }

  /**
   * Ends the level being built (the next one starts at local id `nextStart`) and returns its
   * keys, sorted, in memory other workers can read.
   */
  finishLevel(nextStart: number): Float64Array {
    assert(nextStart === this.upcomingStart + this.upcomingCount, 'levels are contiguous');
    const count = this.upcomingCount;
    const order = sortByKey(this.keys, count);
    const shared = new Float64Array(new SharedArrayBuffer(count * 8));
    for (let position = 0; position < count; position++) {
      shared[position] = this.keys[order[position]!]!;
    }
    [this.keys, this.finishedKeys] = [this.finishedKeys, this.keys];
    if (this.offsets.length !== this.keys.length) this.offsets = new Int32Array(this.keys.length);
    this.finishedOrder = order;
    this.finishedStart = this.upcomingStart;
    this.finishedCount = count;
    this.upcomingStart = nextStart;
    this.upcomingCount = 0;
    return shared;
  }

  /**
   * The finished level becomes the one to expand. A state's rank is its position among this
   * worker's keys plus, in every other worker's sorted list (`sortedLists[own]` is this
   * worker's), the number of lesser keys: one merge pass over each list.
   */
  rank(sortedLists: readonly Float64Array[], own: number): void {
    const count = this.finishedCount;
    const order = this.finishedOrder;
    if (this.ranks.length < count) this.ranks = new Int32Array(Math.max(count, 1024) * 2);
    const cursors = new Int32Array(sortedLists.length);
    for (let position = 0; position < count; position++) {
      const index = order[position]!;
      const key = this.finishedKeys[index]!;
      let rank = position;
      for (let worker = 0; worker < sortedLists.length; worker++) {
        if (worker === own) continue;
        const sorted = sortedLists[worker]!;
        let cursor = cursors[worker]!;
        while (cursor < sorted.length && sorted[cursor]! < key) cursor++;
        cursors[worker] = cursor;
        rank += cursor;
      }
      this.ranks[index] = rank;
    }
    this.currentStart = this.finishedStart;
  }

  rankOf(localId: number): number {
    const index = localId - this.currentStart;
    assert(index >= 0 && index < this.ranks.length, 'a rank belongs to the level expanded');
    return this.ranks[index]!;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    this.keys = keys;
    const offsets = new Int32Array(this.offsets.length * 2);
    offsets.set(this.offsets);
    this.offsets = offsets;
  }
}
