/**
 * Deterministic minimal-move rebalancing (MIT 6.5840 shardctrler, Lab 4A: "divide the shards
 * as evenly as possible among the full set of groups, and move as few shards as possible").
 *
 * With n shards and g groups every group gets floor(n / g) or ceil(n / g) shards: exactly
 * n mod g groups get the larger count. With more groups than shards that means n groups get
 * one shard and the others none. Only with no group at all are shards unassigned (gid 0).
 *
 * The rules, each a pure function of the previous assignment and the sorted set of gids, so
 * the output never depends on the order in which the caller listed gids or keys:
 *
 * 1. Targets: the n mod g groups that get the larger count are the groups holding the most
 *    shards now; ties go to the smaller gid.
 * 2. A group above its target gives up its highest-numbered shards; a shard whose gid is not
 *    among the groups (a departed group, or 0) is free.
 * 3. Free shards, in ascending shard order, each go to the group below its target that holds
 *    the fewest shards at that moment; ties go to the smaller gid. So the shards of a leaving
 *    group go to the groups with the fewest.
 *
 * Every shard that changes gid is free in rule 2, and every free shard must change gid, so the
 * number moved is the number a balanced assignment forces: see `minimumMoves`, which computes
 * that lower bound independently.
 */
import { assert } from '../assert.js';
import { noControllerBugs, type ControllerBugs } from './bugs.js';
import { unassignedGid, type Gid } from './types.js';

/**
 * The gids sorted ascending; asserts they are positive integers with no repeats. Gids listed
 * ascending already (memberGids lists them so) are returned as they are: no copy to sort.
 */
export function sortedGids(gids: readonly Gid[]): readonly Gid[] {
  let ascending = true;
  for (let index = 1; index < gids.length && ascending; index++) {
    ascending = gids[index - 1]! < gids[index]!;
  }
  const sorted = ascending ? gids : gids.slice().sort((a, b) => a - b);
  for (let index = 0; index < sorted.length; index++) {
    const gid = sorted[index]!;
    assert(Number.isInteger(gid) && gid > 0, `rebalance: gid ${gid} is not a positive integer`);
    assert(index === 0 || sorted[index - 1] !== gid, `rebalance: gid ${gid} listed twice`);
  }
  return sorted;
}

/** How many shards each gid of `sorted` holds in `shards`, in the order of `sorted`. */
function countsOf(shards: readonly Gid[], sorted: readonly Gid[]): number[] {
  const counts = sorted.map(() => 0);
  for (const gid of shards) {
    const position = sorted.indexOf(gid);
    if (position >= 0) counts[position]! += 1;
  }
  return counts;
}

/** Rule 1: each group's target count, in the order of `sorted`. */
function targetsOf(counts: readonly number[], shardCount: number, bugs: ControllerBugs): number[] {
  const groupCount = counts.length;
  const base = Math.floor(shardCount / groupCount);
  const larger = shardCount % groupCount;
  // Positions by current count descending, then by gid ascending (positions follow gids).
  // non-minimal-by-gid-order: the larger counts go to the lowest gids, whatever they hold.
  const order = counts.map((_, position) => position);
  if (!bugs['non-minimal-by-gid-order']) order.sort((a, b) => counts[b]! - counts[a]! || a - b);
  const targets = counts.map(() => base);
  for (let rank = 0; rank < larger; rank++) targets[order[rank]!] = base + 1;
  return targets;
}

/** The balanced, minimal-move assignment of `shards` to the groups `gids` (any order). */
export function rebalance(
  shards: readonly Gid[],
  gids: readonly Gid[],
  bugs: ControllerBugs = noControllerBugs,
): Gid[] {
  const sorted = sortedGids(gids);
  if (sorted.length === 0) return shards.map(() => unassignedGid);
  const counts = countsOf(shards, sorted);
  const targets = targetsOf(counts, shards.length, bugs);
  const result = shards.slice();
  const free: number[] = [];
  // Rule 2: walk shards from the highest number down so an over-full group keeps its lowest.
  for (let shard = result.length - 1; shard >= 0; shard--) {
    const position = sorted.indexOf(result[shard]!);
    if (position < 0) free.push(shard);
    else if (counts[position]! > targets[position]!) {
      counts[position]! -= 1;
      free.push(shard);
    }
  }
  free.reverse();
  for (const shard of free) {
    let chosen = -1;
    for (let position = 0; position < sorted.length; position++) {
      if (counts[position]! >= targets[position]!) continue;
      if (chosen < 0 || counts[position]! < counts[chosen]!) chosen = position;
    }
    assert(chosen >= 0, 'rebalance: a free shard found no group below its target');
    counts[chosen]! += 1;
    result[shard] = sorted[chosen]!;
  }
  const reached = counts.every((count, position) => count === targets[position]);
  assert(reached, 'rebalance: a group missed its target');
  return result;
}

/**
 * The lower bound on shards whose gid must change to reach a balanced assignment, computed
 * from counts alone (no assignment is built): every shard of a gid outside `gids` moves, and
 * each group keeps at most its target. Giving the larger target to groups holding more than
 * the base count saves one move each, for at most n mod g groups.
 */
export function minimumMoves(shards: readonly Gid[], gids: readonly Gid[]): number {
  const members = new Set(gids);
  if (members.size === 0) return shards.filter((gid) => gid !== unassignedGid).length;
  const base = Math.floor(shards.length / members.size);
  const larger = shards.length % members.size;
  let orphans = 0;
  const held = new Map<Gid, number>();
  for (const gid of shards) {
    if (members.has(gid)) held.set(gid, (held.get(gid) ?? 0) + 1);
    else orphans += 1;
  }
  let excess = 0;
  let aboveBase = 0;
  for (const count of held.values()) {
    if (count > base) {
      excess += count - base;
      aboveBase += 1;
    }
  }
  return orphans + excess - Math.min(larger, aboveBase);
}

/** How many shards have a different gid in `after` than in `before`. */
export function movedShards(before: readonly Gid[], after: readonly Gid[]): number {
  assert(before.length === after.length, 'movedShards: shard counts differ');
  let moved = 0;
  for (let shard = 0; shard < before.length; shard++) if (before[shard] !== after[shard]) moved++;
  return moved;
}

/**
 * The `non-minimal-rebalance` bug: deals the shards out afresh, round robin over the sorted
 * gids, ignoring who holds what. Balanced and deterministic, but it moves shards needlessly.
 */
export function rebalanceFromScratch(shards: readonly Gid[], gids: readonly Gid[]): Gid[] {
  const sorted = sortedGids(gids);
  if (sorted.length === 0) return shards.map(() => unassignedGid);
  return shards.map((_, shard) => sorted[shard % sorted.length]!);
}
