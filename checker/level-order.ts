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
import { assert } from '../spec/assert.js';

/** Actions a state may list at most: the action index is the low part of a key. */
export const actionSlots = 2 ** 20;
const rankLimit = 2 ** 31;

export function pathKey(parentRank: number, actionIndex: number): number {
  assert(actionIndex >= 0 && actionIndex < actionSlots, 'too many actions for a path key');
  assert(parentRank >= 0 && parentRank < rankLimit, 'level too wide for a path key');
  return parentRank * actionSlots + actionIndex;
}

/** The number of entries of `sorted` below `key`. */
function lowerBound(sorted: Float64Array, key: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
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
    const shared = new Float64Array(new SharedArrayBuffer(count * 8));
    shared.set(this.keys.subarray(0, count));
    [this.keys, this.finishedKeys] = [this.finishedKeys, this.keys];
    if (this.offsets.length !== this.keys.length) this.offsets = new Int32Array(this.keys.length);
    this.finishedStart = this.upcomingStart;
    this.finishedCount = count;
    this.upcomingStart = nextStart;
    this.upcomingCount = 0;
    return shared.sort();
  }

  /** The finished level becomes the one to expand, ranked in every worker's sorted keys. */
  rank(sortedLists: readonly Float64Array[]): void {
    const count = this.finishedCount;
    if (this.ranks.length < count) this.ranks = new Int32Array(Math.max(count, 1024) * 2);
    for (let index = 0; index < count; index++) {
      const key = this.finishedKeys[index]!;
      let rank = 0;
      for (const sorted of sortedLists) rank += lowerBound(sorted, key);
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
