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
import { dedupRecordBytes, entryBytes } from './image-cut.js';
import type { MapKey, OrderedMap } from './ordered-map.js';
import type { DedupRecord, Image, ImageDelta, ImagePart, PrecopyBase } from './types.js';

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

/** The delta that turns `base` into `image` (both of the same shard and identity). */
export function imageDelta(base: PrecopyBase, image: Image): ImageDelta {
  const kv = mapDelta(base.kv, image.kv, (a, b) => a === b);
  const dedup = mapDelta(base.dedup, image.dedup, sameRecord);
  const delta: ImageDelta = {
    digest: image.digest,
    sessionFloor: image.sessionFloor,
    kv: kv.set,
    dedup: dedup.set,
    kvRemoved: kv.removed,
    dedupRemoved: dedup.removed,
  };
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
