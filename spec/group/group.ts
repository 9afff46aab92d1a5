/**
 * Building and reading a group's state: the empty group, the shard record a group starts
 * with, the copy-on-write update of one shard record that every command uses, and the guard
 * on migration identities.
 */
import { assert } from '../assert.js';
import type { Gid } from '../controller/types.js';
import { SortedArrayMap } from './ordered-map.js';
import type { DedupMap, GroupState, Identity, KvMap, ShardState } from './types.js';

/** The empty maps a group starts from; every later map of the group derives from them. */
export interface EmptyMaps {
  readonly kv: KvMap;
  readonly dedup: DedupMap;
}

/** The model's maps: sorted arrays, plain and canonical. */
export const sortedArrayMaps: EmptyMaps = {
  kv: SortedArrayMap.empty(),
  dedup: SortedArrayMap.empty(),
};

export function absentShard(maps: EmptyMaps): ShardState {
  return {
    phase: 'absent',
    identity: null,
    kv: maps.kv,
    dedup: maps.dedup,
    frozenDigest: null,
    receipt: null,
    tombstone: null,
    staged: null,
  };
}

/**
 * A group that holds no shard: every record absent, no receipts, no tombstones. The runtime
 * passes B-tree maps (btree-map.ts); the model keeps the default sorted arrays.
 */
export function emptyGroup(
  gid: Gid,
  shardCount: number,
  maps: EmptyMaps = sortedArrayMaps,
): GroupState {
  assert(Number.isInteger(gid) && gid > 0, `emptyGroup: gid ${gid} must be positive`);
  assert(
    Number.isInteger(shardCount) && shardCount > 0,
    `emptyGroup: bad shard count ${shardCount}`,
  );
  assert(maps.kv.size === 0 && maps.dedup.size === 0, 'emptyGroup: the maps must be empty');
  const absent = absentShard(maps);
  return { gid, shards: Array<ShardState>(shardCount).fill(absent), sessionFloor: 0 };
}

/** The group with shard `shard`'s record replaced; the input is not touched. */
export function withShard(group: GroupState, shard: number, record: ShardState): GroupState {
  assert(shard >= 0 && shard < group.shards.length, `withShard: shard ${shard} out of range`);
  const shards = group.shards.slice();
  shards[shard] = record;
  return { ...group, shards };
}

/**
 * Whether `identity` may act on a record that last took part in `record.identity` (DESIGN
 * §3): an older epoch is stale; the same epoch with another src or dst is a conflict (one
 * configuration change moves a shard once). Null when it may act.
 */
export function identityProblem(
  record: ShardState,
  identity: Identity,
  acceptStaleEpoch: boolean,
): 'stale-epoch' | 'identity-conflict' | null {
  const last = record.identity;
  if (last === null) return null;
  // accept-stale-epoch: the group acts on messages of an older migration.
  if (last.epoch > identity.epoch) return acceptStaleEpoch ? null : 'stale-epoch';
  const conflict = last.epoch === identity.epoch && (last.src !== identity.src ||
    last.dst !== identity.dst);
  return conflict ? 'identity-conflict' : null;
}

/** The value of `key` ('' when absent: a missing key reads ""). */
export function readValue(kv: KvMap, key: string): string {
  return kv.get(key) ?? '';
}
