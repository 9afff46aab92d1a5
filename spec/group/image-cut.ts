/**
 * How a large image is cut into parts (issue 21 item 3; image-parts.ts stages them at dst).
 * The cut is deterministic: KV entries then dedup records, in key order, a new part whenever
 * the next item would pass the budget (an item larger than the budget is a part alone). An
 * image that fits one part is not cut: it travels whole. src cuts its frozen image with the
 * budget the driver names, so the driver and src agree on every part without the driver ever
 * holding the whole image: a freeze answers a large image by its manifest (the digest and
 * how many parts), and each part is fetched on its own (migration-steps.ts fetchPart).
 */
import type { Image, ImagePart, PartsManifest } from './types.js';

/** What a dedup record weighs in a part (its JSON: four fields, about this many bytes). */
export const dedupRecordBytes = 48;

/** A KV entry's weight: its key and value (UTF-16 units, bytes for ASCII) and quoting. */
export const entryBytes = (key: string, value: string) => key.length + value.length + 8;

/**
 * How images travel: src cuts them into parts of at most `partBytesMax` (Infinity: never cut;
 * the group's size policy, SizeLimits.imagePartBytes, so every replica cuts alike), and the
 * driver has up to `partsInFlightMax` of them out at once, the next ones after the last
 * acknowledged (dst applies them in order, so a window keeps both groups' logs busy instead
 * of one round trip a part).
 */
export interface PartLimits {
  readonly partBytesMax: number;
  readonly partsInFlightMax: number;
}

/**
 * The runtime's: one append's budget (impl/node/tuning.ts maxBytesPerAppend), and a window of
 * 4 parts (4 MiB: half of a leader's inflight bytes, tuning.maxInflightBytes). Every caller
 * that sets none, conformance's replay of the driver and groups included, does as the runtime.
 */
export const defaultPartLimits: PartLimits = { partBytesMax: 2 ** 20, partsInFlightMax: 4 };

/**
 * Walks the image's items in order, cutting as described above; builds only the parts
 * `wanted` names (a count needs none, a fetch one). Returns how many parts there are.
 */
function cutImage(image: Image, partBytesMax: number, wanted: (index: number) => boolean) {
  const emptyPart: ImagePart = { kv: image.kv.empty(), dedup: image.dedup.empty() };
  const parts: ImagePart[] = [];
  let index = 0;
  let part: ImagePart | null = wanted(0) ? emptyPart : null;
  let bytes = 0;
  const room = (weight: number) => {
    if (bytes > 0 && bytes + weight > partBytesMax) {
      if (part !== null) parts.push(part);
      index++;
      part = wanted(index) ? emptyPart : null;
      bytes = 0;
    }
    bytes += weight;
  };
  for (const [key, value] of image.kv.entries()) {
    room(entryBytes(key, value));
    if (part !== null) part = { kv: part.kv.set(key, value), dedup: part.dedup };
  }
  for (const [client, record] of image.dedup.entries()) {
    room(dedupRecordBytes);
    if (part !== null) part = { kv: part.kv, dedup: part.dedup.set(client, record) };
  }
  if (part !== null) parts.push(part);
  return { count: index + 1, parts };
}

/** The image cut into parts of at most `limits.partBytesMax` each; one part if it fits. */
export function imageParts(image: Image, limits: Pick<PartLimits, 'partBytesMax'>): ImagePart[] {
  return cutImage(image, limits.partBytesMax, () => true).parts;
}

/** How many parts `image` has under `partBytesMax`, without building them. */
export function imagePartCount(image: Image, partBytesMax: number): number {
  return cutImage(image, partBytesMax, () => false).count;
}

/** Part number `index` of `image` under `partBytesMax`, or null past the last. */
export function imagePart(image: Image, partBytesMax: number, index: number): ImagePart | null {
  if (!Number.isSafeInteger(index) || index < 0) return null;
  return cutImage(image, partBytesMax, (wanted) => wanted === index).parts[0] ?? null;
}

/** The manifest binding the parts of `image` (of a pre-copy base: `precopy`). */
export function partsManifest(image: Image, count: number, precopy = false): PartsManifest {
  const manifest = { digest: image.digest, sessionFloor: image.sessionFloor, count };
  return precopy ? { ...manifest, precopy: true } : manifest;
}
