/**
 * A large image travels in parts (issue 21 item 3). One log entry or message holding a 10 MiB
 * image stalls every loop that encodes, sends, decodes or saves it beyond an election
 * timeout, so the driver fetches an image from src in parts of at most one append's byte
 * budget (image-cut.ts), stages each at dst as its own entry, then sends an install that
 * assembles what dst staged.
 *
 * - stagePart: dst stages parts in order, bound to the identity and the manifest (the frozen
 *   digest). A part already staged, or one past the next, changes nothing: the answer says
 *   how many are staged, and the driver sends the next from there (a recovering driver starts
 *   again from part 0 and learns from the first answer what is acknowledged). A part of
 *   another identity or digest than the staging is refused.
 * - installParts: once every part is staged, the assembled image is installed as a whole one
 *   is (installShard: receipt, repeats, refusals), and the staging is dropped.
 * - Pre-copy (image-delta.ts): the parts of a base src pinned while serving (its manifest
 *   says precopy) stage the same way; their install carries the delta src froze, and installs
 *   the base with the delta applied. When the freeze's delta was too large to travel, the
 *   driver stages the frozen image itself instead: its first part replaces a base's staging
 *   of the same identity (never the other way round, so a late base part cannot undo it).
 */
import { sameIdentity } from './digest.js';
import { identityProblem, withShard } from './group.js';
import { installShard } from './migration-steps.js';
import { applyDelta } from './image-delta.js';
import type { MigrationBugs } from '../migration/bugs.js';
import type { MapKey, OrderedMap } from './ordered-map.js';
import type {
  Applied,
  GroupError,
  GroupState,
  Identity,
  Image,
  ImageDelta,
  ImagePart,
  PartsManifest,
  ShardState,
  StagedImage,
} from './types.js';

const refuse = (group: GroupState, error: GroupError): Applied => ({
  state: group,
  result: { type: 'error', error },
});

const stagedResult = (identity: Identity, manifest: PartsManifest, parts: number): Applied[
  'result'] => ({ type: 'staged', identity, digest: manifest.digest, parts });

/** A staging of another identity or image than this part's refuses it. */
function stagingConflict(staged: StagedImage | null, identity: Identity,
  manifest: PartsManifest): GroupError | null {
  if (staged === null) return null;
  if (!sameIdentity(staged.identity, identity)) return 'identity-conflict';
  const same = staged.manifest.digest === manifest.digest &&
    staged.manifest.count === manifest.count;
  return same ? null : 'digest-mismatch';
}

/** The guard stagePart and installParts share; the record when it may act. */
function partsGuard(group: GroupState, identity: Identity, manifest: PartsManifest,
  bugs: MigrationBugs): GroupError | ShardState {
  if (identity.dst !== group.gid) return 'ErrWrongGroup';
  const record = group.shards[identity.shard];
  if (record === undefined) return 'not-held';
  const problem = identityProblem(record, identity, bugs['accept-stale-epoch'] === true);
  if (problem !== null) return problem;
  if (!Number.isSafeInteger(manifest.count) || manifest.count < 2) return 'bad-request';
  return record;
}

export function stagePart(
  group: GroupState,
  identity: Identity,
  manifest: PartsManifest,
  index: number,
  part: ImagePart,
  bugs: MigrationBugs,
): Applied {
  const record = partsGuard(group, identity, manifest, bugs);
  if (typeof record === 'string') return refuse(group, record);
  if (!Number.isSafeInteger(index) || index < 0 || index >= manifest.count) {
    return refuse(group, 'bad-request');
  }
  const receipt = record.receipt;
  // Installed already: every part is in; the install's repeat answers the receipt. (A base's
  // digest is not the image's: the install of the base with its delta compares that.)
  if (receipt !== null && sameIdentity(receipt.identity, identity)) {
    if (receipt.digest !== manifest.digest && manifest.precopy !== true) {
      return refuse(group, 'digest-mismatch');
    }
    return { state: group, result: stagedResult(identity, manifest, manifest.count) };
  }
  if (record.phase !== 'absent') return refuse(group, 'shard-present');
  const replacing = record.staged !== null && sameIdentity(record.staged.identity, identity) &&
    record.staged.manifest.precopy === true && manifest.precopy !== true;
  const current = replacing ? null : record.staged;
  const conflict = stagingConflict(current, identity, manifest);
  if (conflict !== null) return refuse(group, conflict);
  const staged = current?.parts ?? 0;
  if (index !== staged) {
    return { state: group, result: stagedResult(identity, manifest, staged) };
  }
  const kv = current?.kv ?? record.kv.empty();
  const dedup = current?.dedup ?? record.dedup.empty();
  const next: StagedImage = {
    identity,
    manifest,
    parts: staged + 1,
    kv: mergeInto(kv, part.kv.entries()),
    dedup: mergeInto(dedup, part.dedup.entries()),
  };
  const state = withShard(group, identity.shard, { ...record, staged: next });
  return { state, result: stagedResult(identity, manifest, next.parts) };
}

/** `map` with every entry of `entries` set (a part's entries are all new to the staging). */
function mergeInto<K extends MapKey, V>(
  map: OrderedMap<K, V>,
  entries: IterableIterator<readonly [K, V]>,
): OrderedMap<K, V> {
  let merged = map;
  for (const [key, value] of entries) merged = merged.set(key, value);
  return merged;
}

/** `delta`: for a pre-copy base (manifest.precopy), what the freeze changed; else null. */
export function installParts(
  group: GroupState,
  identity: Identity,
  manifest: PartsManifest,
  delta: ImageDelta | null,
  bugs: MigrationBugs,
): Applied {
  const record = partsGuard(group, identity, manifest, bugs);
  if (typeof record === 'string') return refuse(group, record);
  if ((delta !== null) !== (manifest.precopy === true)) return refuse(group, 'bad-request');
  const digest = delta?.digest ?? manifest.digest;
  const staged = record.staged;
  const complete = staged !== null && stagingConflict(staged, identity, manifest) === null &&
    staged.parts === manifest.count;
  const receipt = record.receipt;
  if (!complete) {
    // A repeat after the install: the receipt, as a repeated whole install answers it.
    if (receipt === null || !sameIdentity(receipt.identity, identity)) {
      return refuse(group, 'parts-missing');
    }
    if (receipt.digest !== digest) return refuse(group, 'digest-mismatch');
    return { state: group, result: { type: 'receipt', receipt } };
  }
  const image: Image = delta !== null ? applyDelta(staged, delta) : {
    kv: staged.kv,
    dedup: staged.dedup,
    sessionFloor: manifest.sessionFloor,
    digest,
  };
  const installed = installShard(group, identity, image, bugs);
  if (installed.result.type !== 'receipt') return installed;
  const after = installed.state.shards[identity.shard]!;
  const state = withShard(installed.state, identity.shard, { ...after, staged: null });
  return { state, result: installed.result };
}
