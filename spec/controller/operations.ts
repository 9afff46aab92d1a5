/**
 * The controller's configuration operations (MIT 6.5840 shardctrler: Join, Leave, Move), as
 * pure functions from the latest configuration to the next one. Like etcd's confchange, each
 * checks its input, never touches it, and returns a new configuration numbered latest.num + 1,
 * or a one-line reason the request is refused (a refusal makes no configuration).
 *
 * Join and Leave rebalance (see rebalance.ts); Move does not: it pins one shard to one group,
 * and the next Join or Leave rebalances from there.
 */
import { assert } from '../assert.js';
import { noControllerBugs, type ControllerBugs } from './bugs.js';
import { rebalance, rebalanceFromScratch } from './rebalance.js';
import { unassignedGid, type Config, type ControllerResult, type Gid } from './types.js';

/** Configuration 0: every shard unassigned, no groups. */
export function initialConfig(shardCount: number): Config {
  const valid = Number.isInteger(shardCount) && shardCount > 0;
  assert(valid, `initialConfig: bad shard count ${shardCount}`);
  return { num: 0, shards: Array<Gid>(shardCount).fill(unassignedGid), groups: {} };
}

const refuse = (error: string): { ok: false; error: string } => ({ ok: false, error });

/**
 * The gids that key a groups record, ascending (integer keys iterate in ascending order). Not
 * memoised: use it where a record may have been changed in place (HistoryImmutable checks).
 */
export function groupGids(groups: Config['groups']): Gid[] {
  const gids: Gid[] = [];
  for (const key in groups) gids.push(Number(key));
  return gids;
}

/** Memo of `memberGids`, by groups record: reading integer keys is slow in V8 (~0.5 us). */
const memberGidsMemo = new WeakMap<Config['groups'], readonly Gid[]>();

/**
 * The member gids of a configuration, ascending. Memoised per groups record, which is sound
 * because configurations are never changed once made (HistoryImmutable); the checker calls
 * this several times for every state.
 */
export function memberGids(config: Config): readonly Gid[] {
  let gids = memberGidsMemo.get(config.groups);
  if (gids === undefined) {
    gids = Object.freeze(groupGids(config.groups));
    memberGidsMemo.set(config.groups, gids);
  }
  return gids;
}

function gidProblem(operation: string, gid: number): string | null {
  if (!Number.isSafeInteger(gid)) return `${operation}: gid ${gid} is not an integer`;
  if (gid <= 0) return `${operation}: gid ${gid} is not positive (gid 0 means unassigned)`;
  return null;
}

function nextConfig(latest: Config, shards: readonly Gid[], groups: Config['groups']): Config {
  const config: Config = { num: latest.num + 1, shards, groups };
  assert(config.shards.length === latest.shards.length, 'a configuration changed its shard count');
  return config;
}

/**
 * How Join and Leave rebalance: `rebalance`, or with the non-minimal-rebalance bug the
 * from-scratch deal (the one place that switch is consulted).
 */
export function rebalanceShards(
  shards: readonly Gid[],
  gids: readonly Gid[],
  bugs: ControllerBugs,
): Gid[] {
  if (bugs['non-minimal-rebalance']) return rebalanceFromScratch(shards, gids);
  return rebalance(shards, gids, bugs);
}

/** Join: adds the groups (gid -> servers) and rebalances. */
export function joinConfig(
  latest: Config,
  groups: Readonly<Record<number, readonly string[]>>,
  bugs: ControllerBugs = noControllerBugs,
): ControllerResult<Config> {
  const keys = Object.keys(groups);
  if (keys.length === 0) return refuse('join: no groups given');
  for (const key of keys) {
    const gid = Number(key);
    // A key such as '02' or 'x' names no gid: reject it rather than guess.
    if (String(gid) !== key) return refuse(`join: gid '${key}' is not an integer`);
    const problem = gidProblem('join', gid);
    if (problem) return refuse(problem);
    if (gid in latest.groups) return refuse(`join: gid ${gid} is already a member`);
    const servers = groups[gid]!;
    if (!Array.isArray(servers) || servers.length === 0) {
      return refuse(`join: gid ${gid} has no servers`);
    }
  }
  const merged: Record<number, readonly string[]> = { ...latest.groups };
  for (const key of keys) merged[Number(key)] = groups[Number(key)]!.slice();
  const shards = rebalanceShards(latest.shards, memberGids({ ...latest, groups: merged }), bugs);
  return { ok: true, value: nextConfig(latest, shards, merged) };
}

/** Leave: removes the groups and hands their shards to the remaining groups. */
export function leaveConfig(
  latest: Config,
  gids: readonly Gid[],
  bugs: ControllerBugs = noControllerBugs,
): ControllerResult<Config> {
  if (gids.length === 0) return refuse('leave: no gids given');
  const seen = new Set<Gid>();
  for (const gid of gids) {
    const problem = gidProblem('leave', gid);
    if (problem) return refuse(problem);
    if (seen.has(gid)) return refuse(`leave: gid ${gid} listed twice`);
    seen.add(gid);
    if (!(gid in latest.groups)) return refuse(`leave: unknown gid ${gid} (not a member)`);
  }
  const remaining: Record<number, readonly string[]> = {};
  for (const gid of memberGids(latest)) {
    if (!seen.has(gid)) remaining[gid] = latest.groups[gid]!;
  }
  const gidsLeft = memberGids({ ...latest, groups: remaining });
  const shards = rebalanceShards(latest.shards, gidsLeft, bugs);
  return { ok: true, value: nextConfig(latest, shards, remaining) };
}

/** Move: assigns one shard to one member group; null when it already belongs to that group. */
export function moveConfig(
  latest: Config,
  shard: number,
  gid: Gid,
): ControllerResult<Config | null> {
  const shardCount = latest.shards.length;
  if (!Number.isSafeInteger(shard) || shard < 0 || shard >= shardCount) {
    return refuse(`move: shard ${shard} out of range 0..${shardCount - 1}`);
  }
  const problem = gidProblem('move', gid);
  if (problem) return refuse(problem);
  if (!(gid in latest.groups)) return refuse(`move: unknown gid ${gid} (not a member)`);
  if (latest.shards[shard] === gid) return { ok: true, value: null };
  const shards = latest.shards.slice();
  shards[shard] = gid;
  return { ok: true, value: nextConfig(latest, shards, latest.groups) };
}
