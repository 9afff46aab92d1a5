/**
 * Orders a batch of 64-bit fingerprints (high, low pairs) as unsigned numbers without
 * moving them: a least-significant-digit radix sort of their indexes, six passes of at most
 * 11 bits (a count table of 2,048 entries, which fits any memory cap). The disk mode merges
 * the ordered batch with its sorted file (disk-fingerprint-set.ts).
 */
import { ok as assert } from 'node:assert';

/** [half (0 low word, 1 high word), shift, mask]: least significant digit first. */
const passes: readonly (readonly [number, number, number])[] = [
  [1, 0, 0x7ff], [1, 11, 0x7ff], [1, 22, 0x3ff],
  [0, 0, 0x7ff], [0, 11, 0x7ff], [0, 22, 0x3ff],
];
const counts = new Int32Array(0x800);

/**
 * Fills order[0, count) with 0..count-1 sorted by fingerprint: fingerprint i is
 * (pairs[2i], pairs[2i+1]). `scratch` is as long as `order`; an even number of passes
 * leaves the result in `order`.
 */
export function sortFingerprintIndexes(
  pairs: Int32Array,
  count: number,
  order: Int32Array,
  scratch: Int32Array,
): void {
  assert(order.length >= count && scratch.length >= count && pairs.length >= count * 2);
  for (let index = 0; index < count; index++) order[index] = index;
  let source = order;
  let target = scratch;
  for (const [half, shift, mask] of passes) {
    counts.fill(0);
    for (let index = 0; index < count; index++) {
      counts[(pairs[source[index]! * 2 + half]! >>> shift) & mask]!++;
    }
    let sum = 0;
    for (let digit = 0; digit < counts.length; digit++) {
      const here = counts[digit]!;
      counts[digit] = sum;
      sum += here;
    }
    for (let index = 0; index < count; index++) {
      const item = source[index]!;
      target[counts[(pairs[item * 2 + half]! >>> shift) & mask]!++] = item;
    }
    [source, target] = [target, source];
  }
  assert(source === order, 'an even number of passes');
}

/** Compares two fingerprints as unsigned 64-bit numbers: negative, zero or positive. */
export function compareFingerprints(
  high: number, low: number, otherHigh: number, otherLow: number,
): number {
  const highOrder = (high >>> 0) - (otherHigh >>> 0);
  return highOrder !== 0 ? highOrder : (low >>> 0) - (otherLow >>> 0);
}
