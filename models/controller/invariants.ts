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
 * - Deterministic: rebalancing the same input with its gids listed in other orders (`gidOrders`)
 *   gives the same output.
 * - HistoryImmutable: a step keeps every earlier configuration, unchanged, and appends at most
 *   one, numbered latest + 1.
 */
import { assert } from '../../spec/assert.js';
import { groupGids, memberGids, rebalanceShards } from '../../spec/controller/operations.js';
import type { ControllerBugs } from '../../spec/controller/bugs.js';
import type { ControllerState } from '../../spec/controller/state-machine.js';
import { unassignedGid, type Config, type Gid } from '../../spec/controller/types.js';

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

/** A deep copy of the configurations, taken before a step for `keepsHistory`. */
export function copyConfigs(configs: readonly Config[]): Config[] {
  return configs.map((config) => {
    const groups: Record<number, readonly string[]> = {};
    for (const gid of groupGids(config.groups)) groups[gid] = config.groups[gid]!.slice();
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
  const gids = groupGids(a.groups);
  if (!sameList(gids, groupGids(b.groups))) return false;
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

/** Freezes a configuration (its shards, groups and server lists) so that no step can change it. */
export function freezeConfig(config: Config): Config {
  for (const gid of memberGids(config)) Object.freeze(config.groups[gid]);
  Object.freeze(config.shards);
  Object.freeze(config.groups);
  return Object.freeze(config);
}

const isFrozenConfig = (config: Config) =>
  Object.isFrozen(config) && Object.isFrozen(config.shards) && Object.isFrozen(config.groups);

/**
 * HistoryImmutable for a step from a state whose configurations are frozen (`freezeConfig`),
 * as the model's are: a write in place would have thrown, so keeping the same objects is
 * keeping them unchanged. Cheaper than `keepsHistory`, which needs a copy.
 */
export function keepsFrozenHistory(before: ControllerState, after: ControllerState): boolean {
  assert(before.configs.every(isFrozenConfig), 'keepsFrozenHistory: a configuration is not frozen');
  const added = after.configs.length - before.configs.length;
  if (added < 0 || added > 1) return false;
  for (let index = 0; index < before.configs.length; index++) {
    if (before.configs[index] !== after.configs[index]) return false;
  }
  if (added === 0) return true;
  const previous = after.configs[after.configs.length - 2];
  const appended = after.configs[after.configs.length - 1]!;
  return previous === undefined ? appended.num === 0 : appended.num === previous.num + 1;
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
