/**
 * The controller's named safety properties (DESIGN §3, issue 4), as predicates over plain
 * data so that the model, the unit tests and the property tests share them:
 *
 * - ValidConfig: the shard array has the configured length, every gid is a non-negative
 *   integer, every assigned gid names a group of the configuration, every group has servers.
 * - Balanced: while a group exists no shard is unassigned; a configuration made by Join or
 *   Leave gives every group floor(n/g) or ceil(n/g) shards (max - min <= 1, which with more
 *   groups than shards leaves the extra groups none).
 * - MinimalMoves: a Join or Leave changes the gid of exactly `minimumMoves` shards.
 * - Deterministic: rebalancing the same input with its gids listed in another order gives the
 *   same output.
 * - HistoryImmutable: a step keeps every earlier configuration, unchanged, and appends at most
 *   one, numbered latest + 1.
 */
import { memberGids } from './operations.js';
import { minimumMoves, movedShards, type Rebalancer } from './rebalance.js';
import type { ControllerState } from './state-machine.js';
import { unassignedGid, type Config, type Gid } from './types.js';

export function isValidConfig(config: Config, shardCount: number): boolean {
  if (!Number.isSafeInteger(config.num) || config.num < 0) return false;
  if (config.shards.length !== shardCount) return false;
  for (const gid of memberGids(config)) {
    if (!Number.isSafeInteger(gid) || gid <= 0) return false;
    const servers = config.groups[gid];
    if (!Array.isArray(servers) || servers.length === 0) return false;
  }
  return config.shards.every(
    (gid) => gid === unassignedGid || (Number.isSafeInteger(gid) && gid > 0 && gid in config.groups),
  );
}

/** Every shard assigned while a group exists; none assigned when there is no group. */
export function isFullyAssigned(config: Config): boolean {
  const hasGroups = memberGids(config).length > 0;
  return config.shards.every((gid) => (gid === unassignedGid) !== hasGroups);
}

/** Fully assigned, and each member group's shard count within one of every other's. */
export function isBalanced(config: Config): boolean {
  if (!isFullyAssigned(config)) return false;
  const members = memberGids(config);
  if (members.length === 0) return true;
  const counts = new Map<Gid, number>(members.map((gid) => [gid, 0]));
  for (const gid of config.shards) {
    const count = counts.get(gid);
    if (count === undefined) return false;
    counts.set(gid, count + 1);
  }
  const values = [...counts.values()];
  return Math.max(...values) - Math.min(...values) <= 1;
}

/** The rebalance from `before` to `after`'s groups moved no more shards than it had to. */
export function isMinimalRebalance(before: readonly Gid[], after: Config): boolean {
  return movedShards(before, after.shards) === minimumMoves(before, memberGids(after));
}

/** Upper bound on the orders tried: every order up to this many gids, then a sample. */
const exhaustiveOrdersMaximumGids = 5;

/**
 * The orders of `gids` tried for Deterministic: all of them for up to five gids (120 orders),
 * otherwise the sorted order's rotations and their reversals.
 */
export function gidOrders(gids: readonly Gid[]): Gid[][] {
  if (gids.length > exhaustiveOrdersMaximumGids) {
    const rotations = gids.map((_, start) => [...gids.slice(start), ...gids.slice(0, start)]);
    return [...rotations, ...rotations.map((order) => order.slice().reverse())];
  }
  let orders: Gid[][] = [[]];
  for (const gid of gids) {
    const longer: Gid[][] = [];
    for (const order of orders) {
      for (let at = 0; at <= order.length; at++) {
        longer.push([...order.slice(0, at), gid, ...order.slice(at)]);
      }
    }
    orders = longer;
  }
  return orders;
}

/** Rebalancing `before` onto `gids` in every order of `gidOrders` gives `expected`. */
export function isOrderIndependent(
  rebalancer: Rebalancer,
  before: readonly Gid[],
  gids: readonly Gid[],
  expected: readonly Gid[],
): boolean {
  const want = expected.join(',');
  return gidOrders(gids).every((order) => rebalancer(before, order).join(',') === want);
}

/** A deep copy of the configurations, taken before a step for `keepsHistory`. */
export function copyConfigs(configs: readonly Config[]): Config[] {
  return configs.map((config) => {
    const groups: Record<number, readonly string[]> = {};
    for (const gid of memberGids(config)) groups[gid] = config.groups[gid]!.slice();
    return { num: config.num, shards: config.shards.slice(), groups };
  });
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

export function sameConfig(a: Config, b: Config): boolean {
  if (a.num !== b.num || !sameList(a.shards, b.shards)) return false;
  const gids = memberGids(a);
  if (!sameList(gids, memberGids(b))) return false;
  return gids.every((gid) => sameList(a.groups[gid]!, b.groups[gid]!));
}

/**
 * HistoryImmutable for one step of the replicated state machine: `after` holds every
 * configuration of `before` unchanged (compared with `beforeCopy`, `copyConfigs` of them taken
 * before the step, so a rewrite in place shows) and at most one more, numbered latest + 1.
 */
export function keepsHistory(beforeCopy: readonly Config[], after: ControllerState): boolean {
  const added = after.configs.length - beforeCopy.length;
  if (added < 0 || added > 1) return false;
  for (let index = 0; index < beforeCopy.length; index++) {
    if (!sameConfig(beforeCopy[index]!, after.configs[index]!)) return false;
  }
  if (added === 0) return true;
  const previous = after.configs[after.configs.length - 2];
  const appended = after.configs[after.configs.length - 1]!;
  return previous === undefined ? appended.num === 0 : appended.num === previous.num + 1;
}
