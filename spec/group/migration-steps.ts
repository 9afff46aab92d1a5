/**
 * The group side of a shard migration (DESIGN §3): Freeze at src, Install at dst, Delete at
 * src, each bound to a migration identity (shard, epoch, src, dst).
 *
 * - freeze: src stops serving the shard and keeps a fixed image (KV + dedup table) whose
 *   digest it computes now, once; a repeat for the same identity returns the same image. A
 *   shard left unassigned (dst 0) stays frozen at src; a later identity that moves it on from
 *   src freezes it again under that identity. An image larger than one part of the driver's
 *   budget is answered by its manifest, and fetchPart hands out each part of the same cut
 *   (image-cut.ts): no message carries a large image whole.
 * - install: dst stores the image and a receipt binding the identity to the image digest, and
 *   serves the shard from then on. A repeat with the same identity and digest returns the
 *   original receipt and changes nothing; the same identity with another digest is refused.
 *   When the shard comes back to the group that kept it frozen (src = dst), install serves it
 *   again.
 * - delete: src drops the KV data, keeping a tombstone, but only when shown dst's receipt for
 *   the same identity and the digest it froze: data is dropped only once it is safe.
 *
 * A message whose epoch is older than what the group last took part in for the shard changes
 * nothing (`stale-epoch`), nor does another identity of the same epoch (`identity-conflict`).
 * Each function returns the very same state object when it changes nothing, so that callers
 * (and the model's history variables) can see it.
 */
import { assert } from '../assert.js';
import { unassignedGid } from '../controller/types.js';
import type { MigrationBugs } from '../migration/bugs.js';
import { expireSessions } from './client-requests.js';
import { imageDigest, precopyDigest, sameIdentity } from './digest.js';
import { imagePart, imagePartCount, partsManifest } from './image-cut.js';
import { deltaBytes, imageDelta, precopiedImageDigest } from './image-delta.js';
import { absentShard, identityProblem, withShard } from './group.js';
import type {
  Applied,
  GroupError,
  GroupState,
  Identity,
  Image,
  PrecopyBase,
  Receipt,
  ShardFacts,
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
function imageOf(record: ShardState, sessionFloor: number, bugs: MigrationBugs): Image {
  // dedup-not-migrated: the image carries the KV data but leaves the dedup table behind.
  const dedup = bugs['dedup-not-migrated'] ? record.dedup.empty() : record.dedup;
  // A record pinned for pre-copy digests its changes since the base (image-delta.ts).
  const base = record.precopy;
  const digest = record.frozenDigest ?? (base === undefined ? imageDigest(record.kv, dedup)
    : precopiedImageDigest(base, record.kv, dedup));
  return { kv: record.kv, dedup, sessionFloor, digest };
}

/** The guard every migration step shares: right group, shard in range, identity current. */
function guard(
  group: GroupState,
  identity: Identity,
  role: 'src' | 'dst',
  bugs: MigrationBugs,
): GroupError | null {
  if (identity[role] !== group.gid) return 'ErrWrongGroup';
  const record = group.shards[identity.shard];
  if (record === undefined) return 'not-held';
  return identityProblem(record, identity, bugs['accept-stale-epoch'] === true);
}

/** The record frozen under `identity`, with the digest of its image fixed now. */
function frozenUnder(
  group: GroupState,
  record: ShardState,
  identity: Identity,
  bugs: MigrationBugs,
) {
  // skip-freeze: src hands out its image but keeps serving the shard.
  const phase = bugs['skip-freeze'] ? 'serving' : 'frozen';
  // A base pinned for another identity is of no use to this one.
  const kept = sameIdentity(record.precopy?.identity ?? null, identity);
  const based = withoutBase(record, kept);
  // A parked record's digest is its data's: refreezing under a new identity keeps it.
  const image = imageOf(based, group.sessionFloor, bugs);
  const frozen: ShardState = { ...based, phase, identity, frozenDigest: image.digest };
  return { state: withShard(group, identity.shard, frozen), image };
}

/**
 * The answer to a freeze: the image whole, or, when `partBytesMax` cuts it into more than one
 * part, the manifest the driver fetches its parts by; when src pinned a pre-copy base for the
 * identity and what changed since fits one part, the base's manifest and that delta. A shard
 * coming back to the group that kept it frozen (src = dst) is answered whole: installShard
 * takes that image whole.
 */
function freezeAnswer(identity: Identity, image: Image, partBytesMax: number,
  base: PrecopyBase | null): Applied['result'] {
  const returning = identity.src === identity.dst;
  const count = returning ? 1 : imagePartCount(image, partBytesMax);
  if (count < 2) return { type: 'image', identity, image };
  if (base !== null && sameIdentity(base.identity, identity)) {
    const delta = imageDelta(base, image);
    if (deltaBytes(delta) <= partBytesMax) {
      return { type: 'frozen', identity, manifest: base.manifest, delta };
    }
  }
  return { type: 'frozen', identity, manifest: partsManifest(image, count) };
}

/** `record` without its pre-copy base, unless `keep`. */
function withoutBase(record: ShardState, keep = false): ShardState {
  if (keep || record.precopy === undefined) return record;
  const { precopy: _dropped, ...rest } = record;
  return rest;
}

/** The image a pinned base hands out part by part. */
const baseImage = (base: PrecopyBase): Image => ({
  kv: base.kv, dedup: base.dedup, sessionFloor: base.manifest.sessionFloor,
  digest: base.manifest.digest,
});

/**
 * Pre-copy (image-delta.ts): src pins the shard as it is now, when it is larger than one part
 * of `partBytesMax`, and goes on serving it; the driver copies the base's parts to dst
 * meanwhile, and the freeze hands over only the delta. A repeat answers the pinned base's
 * manifest. A shard src no longer serves for a fresh move (frozen already, coming back, or
 * too small to be worth it) has nothing to pre-copy: the answer says so, and the driver
 * freezes at once. Refused only as a freeze would refuse it.
 */
export function precopyShard(
  group: GroupState,
  identity: Identity,
  bugs: MigrationBugs,
  partBytesMax: number,
): Applied {
  assert(partBytesMax > 0, 'the part budget is positive');
  const problem = guard(group, identity, 'src', bugs);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  const nothing: Applied = {
    state: group, result: { type: 'precopied', identity, manifest: null },
  };
  const fresh = record.phase === 'serving' && !sameIdentity(record.identity, identity) &&
    identity.src !== identity.dst && identity.dst !== unassignedGid;
  if (!fresh) return nothing;
  if (record.precopy !== undefined && sameIdentity(record.precopy.identity, identity)) {
    return { state: group, result: { type: 'precopied', identity,
      manifest: record.precopy.manifest } };
  }
  // dedup-not-migrated leaves the dedup table behind here too; the base is named, not hashed.
  const dedup = bugs['dedup-not-migrated'] ? record.dedup.empty() : record.dedup;
  const image: Image = { kv: record.kv, dedup, sessionFloor: group.sessionFloor,
    digest: precopyDigest(identity) };
  const count = imagePartCount(image, partBytesMax);
  if (count < 2) return nothing;
  const manifest = partsManifest(image, count, true);
  const precopy: PrecopyBase = { identity, manifest, kv: image.kv, dedup: image.dedup };
  const state = withShard(group, identity.shard, { ...record, precopy });
  return { state, result: { type: 'precopied', identity, manifest } };
}

/** `partBytesMax`: the group's part budget (SizeLimits.imagePartBytes; Infinity: never cut). */
export function freezeShard(
  group: GroupState,
  identity: Identity,
  bugs: MigrationBugs,
  partBytesMax: number = Number.POSITIVE_INFINITY,
): Applied {
  assert(partBytesMax > 0, 'the part budget is positive');
  const problem = guard(group, identity, 'src', bugs);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  if (record.phase === 'absent') {
    if (!sameIdentity(record.tombstone, identity)) return refuse(group, 'not-held');
    // migrate-returns-empty-after-gc: asked again after its delete, src hands out what it
    // has left, an empty image, instead of refusing.
    if (!bugs['migrate-returns-empty-after-gc']) return refuse(group, 'already-deleted');
    const image = imageOf(record, group.sessionFloor, bugs);
    return { state: group, result: freezeAnswer(identity, image, partBytesMax, null) };
  }
  if (sameIdentity(record.identity, identity)) {
    const image = imageOf(record, group.sessionFloor, bugs);
    return { state: group, result: freezeAnswer(identity, image, partBytesMax,
      record.precopy ?? null) };
  }
  // Frozen for another move: only a shard parked unassigned here may move on from here.
  const parked = record.identity !== null && record.identity.dst === unassignedGid;
  if (record.phase === 'frozen' && !parked) return refuse(group, 'not-held');
  const { state, image } = frozenUnder(group, record, identity, bugs);
  const base = state.shards[identity.shard]!.precopy ?? null;
  return { state, result: freezeAnswer(identity, image, partBytesMax, base) };
}

/**
 * Part `index` of the image src froze under `identity`, cut by the group's `partBytesMax` as
 * its freeze answer counted them, or of the pre-copy base src pinned for `identity` (its
 * digest names it; src may still serve). Only those images: another digest is refused, and
 * once src deleted the shard there is nothing left to hand out. Changes nothing.
 */
export function fetchPart(
  group: GroupState,
  identity: Identity,
  digest: string,
  partBytesMax: number,
  index: number,
  bugs: MigrationBugs,
): Applied {
  assert(partBytesMax > 0, 'the part budget is positive');
  const problem = guard(group, identity, 'src', bugs);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  if (record.phase === 'absent') {
    return refuse(group, sameIdentity(record.tombstone, identity) ? 'already-deleted' : 'not-held');
  }
  const base = record.precopy;
  if (base !== undefined && sameIdentity(base.identity, identity) && base.manifest.digest === digest) {
    const part = imagePart(baseImage(base), partBytesMax, index);
    if (part === null) return refuse(group, 'bad-request');
    return { state: group, result: { type: 'part', identity, digest, index, part } };
  }
  if (!sameIdentity(record.identity, identity) || record.frozenDigest === null) {
    return refuse(group, 'not-frozen');
  }
  const image = imageOf(record, group.sessionFloor, bugs);
  if (image.digest !== digest) return refuse(group, 'digest-mismatch');
  const part = imagePart(image, partBytesMax, index);
  if (part === null) return refuse(group, 'bad-request');
  return { state: group, result: { type: 'part', identity, digest, index, part } };
}

/** The record `image` makes at dst: serving, with the receipt. */
function installed(record: ShardState, identity: Identity, image: Image | null): ShardState {
  const kv = image?.kv ?? record.kv.empty();
  const dedup = image?.dedup ?? record.dedup.empty();
  const digest = image?.digest ?? imageDigest(kv, dedup);
  const receipt: Receipt = { identity, digest };
  return {
    ...withoutBase(record), phase: 'serving', identity, kv, dedup, frozenDigest: null, receipt,
    staged: null,
  };
}

export function installShard(
  group: GroupState,
  identity: Identity,
  image: Image | null,
  bugs: MigrationBugs,
): Applied {
  const problem = guard(group, identity, 'dst', bugs);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  const next = installed(record, identity, image);
  const receipt = next.receipt!;
  if (record.receipt !== null && sameIdentity(record.receipt.identity, identity)) {
    const other = record.receipt.digest !== receipt.digest;
    // install-accepts-different-image: another image for the installed identity replaces
    // dst's shard instead of being refused.
    if (other && !bugs['install-accepts-different-image']) {
      return refuse(group, 'digest-mismatch');
    }
    // reinstall-overwrites: a repeated install replaces what dst has served since.
    if (other || bugs['reinstall-overwrites']) {
      const state = withShard(group, identity.shard, next);
      const floored = expireSessions(state, image?.sessionFloor ?? 0).state;
      return { state: floored, result: { type: 'receipt', receipt } };
    }
    return { state: group, result: { type: 'receipt', receipt: record.receipt } };
  }
  const returning = record.phase === 'frozen' && identity.src === identity.dst &&
    sameIdentity(record.identity, identity) && record.frozenDigest === receipt.digest;
  if (record.phase !== 'absent' && !returning) return refuse(group, 'shard-present');
  if (record.phase === 'absent' && (record.kv.size > 0 || record.dedup.size > 0)) {
    return refuse(group, 'shard-present');
  }
  // The source's expired sessions are expired here too: their records are not in the image.
  const withImage = withShard(group, identity.shard, next);
  const state = expireSessions(withImage, image?.sessionFloor ?? 0).state;
  return { state, result: { type: 'receipt', receipt } };
}

export function deleteShard(
  group: GroupState,
  identity: Identity,
  receipt: Receipt | null,
  bugs: MigrationBugs,
): Applied {
  const problem = guard(group, identity, 'src', bugs);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  if (sameIdentity(record.tombstone, identity)) {
    return { state: group, result: { type: 'deleted', tombstone: identity } };
  }
  if (receipt === null || !sameIdentity(receipt.identity, identity)) {
    return refuse(group, 'no-receipt');
  }
  if (record.phase !== 'frozen' || !sameIdentity(record.identity, identity)) {
    return refuse(group, 'not-frozen');
  }
  if (receipt.digest !== record.frozenDigest) return refuse(group, 'digest-mismatch');
  const deleted: ShardState = {
    ...absentShard({ kv: record.kv.empty(), dedup: record.dedup.empty() }),
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
export function unfreezeShard(group: GroupState, identity: Identity, bugs: MigrationBugs): Applied {
  const problem = guard(group, identity, 'src', bugs);
  if (problem) return refuse(group, problem);
  const record = group.shards[identity.shard]!;
  if (record.phase !== 'frozen' || !sameIdentity(record.identity, identity)) {
    return refuse(group, 'not-frozen');
  }
  const serving: ShardState = { ...record, phase: 'serving', frozenDigest: null };
  const state = withShard(group, identity.shard, serving);
  return { state, result: { type: 'unfrozen' } };
}

/** `partBytesMax`: the group's part budget, by which a served shard is `large` or not. */
export function queryShard(group: GroupState, shard: number,
  partBytesMax: number = Number.POSITIVE_INFINITY): Applied {
  const record = Number.isSafeInteger(shard) ? group.shards[shard] : undefined;
  if (record === undefined) return refuse(group, 'not-held');
  const { phase, identity, receipt, tombstone } = record;
  const large = phase === 'serving' &&
    imagePartCount({ kv: record.kv, dedup: record.dedup, sessionFloor: 0, digest: '' },
      partBytesMax) > 1;
  const facts: ShardFacts = large ? { phase, identity, receipt, tombstone, large }
    : { phase, identity, receipt, tombstone };
  return { state: group, result: { type: 'facts', facts } };
}
