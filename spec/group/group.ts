/**
 * Building and reading a group's state: the empty group, the shard record a group starts
 * with, and the copy-on-write update of one shard record that every command uses.
 */
import { assert } from '../assert.js';
import type { Gid } from '../controller/types.js';
import type { GroupState, Identity, ShardState } from './types.js';

export const absentShard: ShardState = {
  phase: 'absent',
  identity: null,
  kv: [],
  dedup: [],
  receipt: null,
  tombstone: null,
};

/** A group that holds no shard: every record absent, no receipts, no tombstones. */
export function emptyGroup(gid: Gid, shardCount: number): GroupState {
  assert(Number.isInteger(gid) && gid > 0, `emptyGroup: gid ${gid} must be positive`);
  assert(
    Number.isInteger(shardCount) && shardCount > 0,
    `emptyGroup: bad shard count ${shardCount}`,
  );
  return { gid, shards: Array<ShardState>(shardCount).fill(absentShard), sessionFloor: 0 };
}

/** The group with shard `shard`'s record replaced; the input is not touched. */
export function withShard(group: GroupState, shard: number, record: ShardState): GroupState {
  assert(shard >= 0 && shard < group.shards.length, `withShard: shard ${shard} out of range`);
  const shards = group.shards.slice();
  shards[shard] = record;
  return { ...group, shards };
}

/**
 * True when `identity` is older than the migration the group last took part in for its
 * shard: DESIGN §3, "a message with an older epoch is rejected".
 */
export function isStale(record: ShardState, identity: Identity): boolean {
  return record.identity !== null && record.identity.epoch > identity.epoch;
}

/** The value of `key` in a sorted KV array ('' when absent: a missing key reads ""). */
export function readValue(kv: ShardState['kv'], key: string): string {
  for (const entry of kv) {
    if (entry.key === key) return entry.value;
  }
  return '';
}

/** The sorted KV array with `key` set to `value`. */
export function writeValue(kv: ShardState['kv'], key: string, value: string): ShardState['kv'] {
  const result = kv.filter((entry) => entry.key !== key);
  let index = 0;
  while (index < result.length && result[index]!.key < key) index++;
  result.splice(index, 0, { key, value });
  return result;
}
