/**
 * The group side of a shard migration (DESIGN §3): Freeze at src, Install at dst, Delete at
 * src, each bound to a migration identity (shard, epoch, src, dst).
 *
 * - freeze: src stops serving the shard and keeps a fixed image (KV + dedup table); a repeat
 *   for the same identity returns the same image.
 * - install: dst stores the image and a receipt binding the identity to the image digest, and
 *   serves the shard from then on. A repeat with the same identity and digest returns the
 *   original receipt and changes nothing; the same identity with another digest is refused.
 * - delete: src drops the KV data, keeping a tombstone, but only when shown dst's receipt for
 *   the same identity and the image digest it froze: data is dropped only once it is safe.
 *
 * A message whose epoch is older than what the group last took part in for the shard changes
 * nothing (`stale-epoch`). Each function returns the very same state object when it changes
 * nothing, so that callers (and the model's StaleRejected history) can see it.
 */
import { assert } from '../assert.js';
import { expireSessions } from './client-requests.js';
import { imageDigest, sameIdentity } from './digest.js';
import { absentShard, isStale, withShard } from './group.js';
import type {
  Applied,
  GroupError,
  GroupOptions,
  GroupState,
  Identity,
  Image,
  Receipt,
  ShardState,
} from './types.js';

const refuse = (group: GroupState, error: GroupError): Applied => ({
  state: group,
  result: { type: 'error', error },
});

/**
 * The fixed image a frozen record hands over, with the group's session floor. The floor is
 * not part of the digest: it only rises, and a floor raised after the freeze dropped nothing
 * from the frozen record, so any floor from the freeze on protects what the image lacks.
 */
function imageOf(record: ShardState, sessionFloor: number, options: GroupOptions): Image {
  // dedup-not-migrated: the image carries the KV data but leaves the dedup table behind.
  const dedup = options.bug === 'dedup-not-migrated' ? [] : record.dedup;
  return { kv: record.kv, dedup, sessionFloor };
}

/** The guard every migration step shares: right group, shard in range, not stale. */
function guard(
  group: GroupState,
  identity: Identity,
  role: 'src' | 'dst',
  options: GroupOptions,
): GroupError | null {
  if (identity[role] !== group.gid) return 'ErrWrongGroup';
  const record = group.shards[identity.shard];
  if (record === undefined) return 'not-held';
  // accept-stale-epoch: the group acts on messages of an older migration.
  if (options.bug !== 'accept-stale-epoch' && isStale(record, identity)) return 'stale-epoch';
  return null;
}

export function freezeShard(
  group: GroupState,
  identity: Identity,
  options: GroupOptions = {},
): Applied {
  const problem = guard(group, identity, 'src', options);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  if (record.phase === 'absent') {
    return refuse(group, sameIdentity(record.tombstone, identity) ? 'already-deleted' : 'not-held');
  }
  if (sameIdentity(record.identity, identity)) {
    const image = imageOf(record, group.sessionFloor, options);
    return { state: group, result: { type: 'image', identity, image } };
  }
  if (record.phase === 'frozen') return refuse(group, 'not-held');
  // skip-freeze: src hands out its image but keeps serving the shard.
  const phase = options.bug === 'skip-freeze' ? 'serving' : 'frozen';
  const frozen: ShardState = { ...record, phase, identity };
  const state = withShard(group, identity.shard, frozen);
  const image = imageOf(frozen, group.sessionFloor, options);
  return { state, result: { type: 'image', identity, image } };
}

export function installShard(
  group: GroupState,
  identity: Identity,
  image: Image,
  options: GroupOptions = {},
): Applied {
  const problem = guard(group, identity, 'dst', options);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  const digest = imageDigest(image);
  const receipt: Receipt = { identity, digest };
  const installed: ShardState = {
    ...record,
    phase: 'serving',
    identity,
    kv: image.kv,
    dedup: image.dedup,
    receipt,
  };
  if (record.receipt !== null && sameIdentity(record.receipt.identity, identity)) {
    if (record.receipt.digest !== digest) return refuse(group, 'digest-mismatch');
    // reinstall-overwrites: a repeated install replaces what dst has served since.
    if (options.bug === 'reinstall-overwrites') {
      const state = withShard(group, identity.shard, installed);
      const floored = expireSessions(state, image.sessionFloor).state;
      return { state: floored, result: { type: 'receipt', receipt } };
    }
    return { state: group, result: { type: 'receipt', receipt: record.receipt } };
  }
  if (record.phase !== 'absent') return refuse(group, 'shard-present');
  const empty = record.kv.length === 0 && record.dedup.length === 0;
  assert(empty, 'install: an absent shard holds data (GarbageBound)');
  // The source's expired sessions are expired here too: their records are not in the image.
  const withImage = withShard(group, identity.shard, installed);
  const state = expireSessions(withImage, image.sessionFloor).state;
  return { state, result: { type: 'receipt', receipt } };
}

export function deleteShard(
  group: GroupState,
  identity: Identity,
  receipt: Receipt | null,
  options: GroupOptions = {},
): Applied {
  const problem = guard(group, identity, 'src', options);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  if (sameIdentity(record.tombstone, identity)) {
    return { state: group, result: { type: 'deleted', tombstone: identity } };
  }
  // delete-before-receipt: src drops the data without seeing dst's receipt.
  const checkReceipt = options.bug !== 'delete-before-receipt';
  if (checkReceipt && (receipt === null || !sameIdentity(receipt.identity, identity))) {
    return refuse(group, 'no-receipt');
  }
  if (record.phase !== 'frozen' || !sameIdentity(record.identity, identity)) {
    return refuse(group, 'not-frozen');
  }
  const image = imageOf(record, group.sessionFloor, options);
  if (checkReceipt && receipt!.digest !== imageDigest(image)) {
    return refuse(group, 'digest-mismatch');
  }
  const deleted: ShardState = {
    ...absentShard,
    identity: record.identity,
    receipt: record.receipt,
    tombstone: identity,
  };
  const state = withShard(group, identity.shard, deleted);
  return { state, result: { type: 'deleted', tombstone: identity } };
}

/**
 * Serves a frozen shard again. DESIGN §3: a correct driver never sends this (it never
 * unfreezes a source); it exists because the unfreeze-on-recovery bug needs a group that
 * obeys, as any group receiving a well-formed command would.
 */
export function unfreezeShard(
  group: GroupState,
  identity: Identity,
  options: GroupOptions = {},
): Applied {
  const problem = guard(group, identity, 'src', options);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  if (record.phase !== 'frozen' || !sameIdentity(record.identity, identity)) {
    return refuse(group, 'not-frozen');
  }
  const state = withShard(group, identity.shard, { ...record, phase: 'serving' });
  return { state, result: { type: 'unfrozen' } };
}

export function queryShard(group: GroupState, shard: number): Applied {
  const record = group.shards[shard];
  if (record === undefined) return refuse(group, 'not-held');
  const { phase, identity, receipt, tombstone } = record;
  const facts = { phase, identity, receipt, tombstone };
  return { state: group, result: { type: 'facts', facts } };
}
