/**
 * Pre-copy's delta (issue 21 item 3): what a frozen image has that its pre-copy base lacks.
 * src pins the base while it still serves (migration-steps.ts precopyShard), the driver
 * stages the base's parts at dst, and the freeze hands over only the difference, so the
 * shard is unserved for one small message, not for the whole image. Both maps are persistent
 * and ordered, so the difference is one walk of both in key order; applying it to the base
 * gives the frozen image exactly (test/group/image-delta.test.ts checks it against random
 * maps).
 */
import { assert } from '../assert.js';
import { Fnv64 } from '../fnv.js';
import { dedupRecordBytes, entryBytes } from './image-cut.js';
import type { MapKey, OrderedMap } from './ordered-map.js';
import type {
  DedupMap, DedupRecord, Digest, Image, ImageDelta, ImagePart, KvMap, PrecopyBase,
} from './types.js';

/** The changes from `base` to `image` of one map: entries set, keys removed. */
function mapDelta<K extends MapKey, V>(
  base: OrderedMap<K, V>,
  image: OrderedMap<K, V>,
  same: (a: V, b: V) => boolean,
): { set: OrderedMap<K, V>; removed: K[] } {
  let set = image.empty();
  const removed: K[] = [];
  const before = base.entries();
  const after = image.entries();
  let old = before.next();
  let now = after.next();
  // Each turn consumes at least one entry of one map: at most base.size + image.size turns.
  while (!old.done || !now.done) {
    if (now.done || (!old.done && old.value[0] < now.value[0])) {
      removed.push(old.value![0]);
      old = before.next();
    } else if (old.done || now.value[0] < old.value[0]) {
      set = set.set(now.value[0], now.value[1]);
      now = after.next();
    } else {
      if (!same(old.value[1], now.value[1])) set = set.set(now.value[0], now.value[1]);
      old = before.next();
      now = after.next();
    }
  }
  return { set, removed };
}

const sameRecord = (a: DedupRecord, b: DedupRecord) => a === b || (a.client === b.client &&
  a.seq === b.seq && a.digest === b.digest && a.result === b.result);

/** What changed from `base` to the maps `kv` and `dedup`. */
type Changes = Pick<ImageDelta, 'kv' | 'dedup' | 'kvRemoved' | 'dedupRemoved'>;

function changesSince(base: PrecopyBase, kv: KvMap, dedup: DedupMap): Changes {
  const kvChanges = mapDelta(base.kv, kv, (a, b) => a === b);
  const dedupChanges = mapDelta(base.dedup, dedup, sameRecord);
  return { kv: kvChanges.set, dedup: dedupChanges.set, kvRemoved: kvChanges.removed,
    dedupRemoved: dedupChanges.removed };
}

/**
 * The digest of a pre-copied image, fixed at its freeze: the base's name (one base per
 * identity, digest.ts precopyDigest) and the changes since, rendered as imageDigest renders
 * an image. It binds the image as imageDigest does (the base and the changes determine it),
 * but reads only what changed: hashing a whole 10 MiB image at the freeze took 0.2 s of the
 * unserved time on a quiet machine, 0.7 s loaded, and stalled src's loop into elections.
 */
function changesDigest(base: PrecopyBase, changes: Changes): Digest {
  const hash = new Fnv64();
  hash.update(base.manifest.digest);
  for (const [key, value] of changes.kv.entries()) hash.update(JSON.stringify([key, value]));
  hash.update('|');
  for (const [, record] of changes.dedup.entries()) {
    hash.update(JSON.stringify([record.client, record.seq, record.digest, record.result]));
  }
  hash.update(JSON.stringify([changes.kvRemoved, changes.dedupRemoved]));
  return hash.hex();
}

/** The digest src fixes when it freezes `kv` and `dedup` over the pinned `base`. */
export function precopiedImageDigest(base: PrecopyBase, kv: KvMap, dedup: DedupMap): Digest {
  return changesDigest(base, changesSince(base, kv, dedup));
}

/** The delta that turns `base` into `image` (both of the same shard and identity). */
export function imageDelta(base: PrecopyBase, image: Image): ImageDelta {
  const changes = changesSince(base, image.kv, image.dedup);
  const delta: ImageDelta = { digest: image.digest, sessionFloor: image.sessionFloor, ...changes };
  assert(delta.kv.size + delta.kvRemoved.length <= base.kv.size + image.kv.size,
    'imageDelta: a delta is never larger than both maps');
  return delta;
}

/** What a delta weighs, as parts weigh their items (image-cut.ts). */
export function deltaBytes(delta: ImageDelta): number {
  let bytes = 0;
  for (const [key, value] of delta.kv.entries()) bytes += entryBytes(key, value);
  for (const key of delta.kvRemoved) bytes += entryBytes(key, '');
  return bytes + dedupRecordBytes * (delta.dedup.size + delta.dedupRemoved.length);
}

/** `map` without the keys of `removed`, then with every entry of `set`. */
function patched<K extends MapKey, V>(
  map: OrderedMap<K, V>,
  set: OrderedMap<K, V>,
  removed: readonly K[],
): OrderedMap<K, V> {
  const gone = new Set<K>(removed);
  let result = gone.size === 0 ? map : map.filter((key) => !gone.has(key));
  for (const [key, value] of set.entries()) result = result.set(key, value);
  return result;
}

/** The frozen image: the staged base with `delta` applied. */
export function applyDelta(base: ImagePart, delta: ImageDelta): Image {
  return {
    kv: patched(base.kv, delta.kv, delta.kvRemoved),
    dedup: patched(base.dedup, delta.dedup, delta.dedupRemoved),
    sessionFloor: delta.sessionFloor,
    digest: delta.digest,
  };
}
