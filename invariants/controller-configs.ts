/**
 * The controller's named safety properties about configurations (DESIGN §3, issue 4), over
 * plain data so that the `controller` model, the unit tests and the property tests share them:
 *
 * - ValidConfig: the shard array has the configured length, every gid is a non-negative
 *   integer, every assigned gid names a group of the configuration, every group has servers.
 * - Balanced: while a group exists no shard is unassigned; a configuration made by Join or
 *   Leave gives every group floor(n/g) or ceil(n/g) shards (max - min <= 1, which with more
 *   groups than shards leaves the extra groups none).
 * - MinimalMoves: a Join or Leave changes the gid of exactly `minimumMoves` shards.
 * - Deterministic: rebalancing the same input with its gids listed in other orders (`gidOrders`)
 *   gives the same output.
 *
 * MinimalMoves and Deterministic relate the configuration before a step to the one after: the
 * view is the step's measurement (`RebalanceSummary`), which the model keeps as a history
 * variable. The runtime's controller runs the same rebalance, but no runtime tool keeps the
 * configuration before each Join or Leave: they are checked by the model and by the property
 * tests only.
 */
import { memberGids, rebalanceShards } from '../spec/controller/operations.js';
import type { ControllerBugs } from '../spec/controller/bugs.js';
import { sameList } from './config-history.js';
import { unassignedGid, type Config, type Gid } from '../spec/controller/types.js';

export function isValidConfig(config: Config, shardCount: number): boolean {
  if (!Number.isSafeInteger(config.num) || config.num < 0) return false;
  if (config.shards.length !== shardCount) return false;
  for (const gid of memberGids(config)) {
    if (!Number.isSafeInteger(gid) || gid <= 0) return false;
    const servers = config.groups[gid];
    if (!Array.isArray(servers) || servers.length === 0) return false;
  }
  return config.shards.every(
    (gid) =>
      gid === unassignedGid || (Number.isSafeInteger(gid) && gid > 0 && gid in config.groups),
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

/**
 * The other orders of `gids` tried for Deterministic: reversed, and rotated by one. With the
 * given order, every adjacent pair appears both ways round, which catches a rebalancer that
 * reads its input in order; the property tests try shuffled orders besides. All permutations
 * would cost the model a rebalance per order for every Join and Leave it explores (24 for
 * four gids).
 */
export function gidOrders(gids: readonly Gid[]): readonly (readonly Gid[])[] {
  if (gids.length < 2) return [];
  return [gids.slice().reverse(), [...gids.slice(1), gids[0]!]];
}

/** Rebalancing `before` onto `gids` in every order of `gidOrders` gives `expected`. */
export function isOrderIndependent(
  bugs: ControllerBugs,
  before: readonly Gid[],
  gids: readonly Gid[],
  expected: readonly Gid[],
): boolean {
  return gidOrders(gids).every((order) => sameList(rebalanceShards(before, order, bugs), expected));
}

/** Each member group's shard count, by gid ascending ("gid 1: 3, gid 2: 1"). */
function shareText(config: Config): string {
  const counts = memberGids(config).map(
    (gid) => `gid ${gid}: ${config.shards.filter((owner) => owner === gid).length}`,
  );
  return counts.join(', ');
}

/** Why ValidConfig fails (the checker's `explain`): the first defect found. */
export function explainValidConfig(config: Config, shardCount: number): string {
  if (config.shards.length !== shardCount) {
    return `configuration ${config.num} has ${config.shards.length} shards, not ${shardCount}`;
  }
  const stranger = config.shards.findIndex(
    (gid) => gid !== unassignedGid && !(gid in config.groups),
  );
  if (stranger >= 0) {
    return `shard ${stranger} is assigned to gid ${config.shards[stranger]}, which is not a ` +
      `group of configuration ${config.num}`;
  }
  return `configuration ${config.num} has a malformed gid, number or group`;
}

/** Why Balanced fails: an unassigned shard while groups exist, or the shares. */
export function explainBalanced(config: Config): string {
  if (!isFullyAssigned(config)) {
    const groups = memberGids(config).length;
    const shard = config.shards.findIndex((gid) => (gid === unassignedGid) === groups > 0);
    return groups > 0
      ? `shard ${shard} is unassigned while ${groups} groups exist`
      : `shard ${shard} is assigned to gid ${config.shards[shard]} but no group exists`;
  }
  return `configuration ${config.num} is unbalanced (max - min > 1): ${shareText(config)}`;
}
