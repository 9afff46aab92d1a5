/**
 * Orders a batch of 64-bit fingerprints as unsigned numbers: records of three words (high,
 * low, the candidate's index) sorted by a least-significant-digit radix sort of the high
 * word, three passes of at most 11 bits (a count table of 2,048 entries, which fits any
 * memory cap), then runs of equal high words, rare among hashes, sorted by the low word by
 * insertion (half the time of three more passes over the low word). Each pass
 * reads the records in order and writes them to 2,048 places: sorting indexes instead and
 * reading the fingerprints through them cost a cache miss a read, three times the time on
 * a batch of millions. The disk mode merges the ordered batch with its sorted file
 * (disk-fingerprint-set.ts).
 */
import { ok as assert } from 'node:assert';

/** Words a record takes: high, low, index. */
export const recordWords = 3;

/** [shift, mask] of the high word's digits, least significant first. */
const passes: readonly (readonly [number, number])[] = [[0, 0x7ff], [11, 0x7ff], [22, 0x3ff]];
const counts = new Int32Array(0x800);

/** Sorts records[0, count * 3) by fingerprint; `scratch` is as long. */
export function sortFingerprintRecords(
  records: Int32Array,
  count: number,
  scratch: Int32Array,
): void {
  const words = count * recordWords;
  assert(records.length >= words && scratch.length >= words, 'room for the records');
  let source = records;
  let target = scratch;
  for (const [shift, mask] of passes) {
    counts.fill(0);
    for (let offset = 0; offset < words; offset += recordWords) {
      counts[(source[offset]! >>> shift) & mask]!++;
    }
    let sum = 0;
    for (let digit = 0; digit < counts.length; digit++) {
      const here = counts[digit]!;
      counts[digit] = sum * recordWords;
      sum += here;
    }
    for (let offset = 0; offset < words; offset += recordWords) {
      const high = source[offset]!;
      const low = source[offset + 1]!;
      const place = (high >>> shift) & mask;
      const at = counts[place]!;
      counts[place] = at + recordWords;
      target[at] = high;
      target[at + 1] = low;
      target[at + 2] = source[offset + 2]!;
    }
    [source, target] = [target, source];
  }
  // An odd number of passes: the result is in `scratch`.
  records.set(source.subarray(0, words));
  sortEqualHighRuns(records, words);
}

/** Sorts each run of records with one high word by the low word (insertion: runs are short). */
function sortEqualHighRuns(records: Int32Array, words: number): void {
  for (let offset = recordWords; offset < words; offset += recordWords) {
    const high = records[offset]!;
    if (records[offset - recordWords] !== high) continue;
    const low = records[offset + 1]!;
    const index = records[offset + 2]!;
    let at = offset;
    while (at > 0 && records[at - recordWords] === high &&
      records[at - recordWords + 1]! >>> 0 > low >>> 0) {
      records.copyWithin(at, at - recordWords, at);
      at -= recordWords;
    }
    records[at] = high;
    records[at + 1] = low;
    records[at + 2] = index;
  }
}

/** Compares two fingerprints as unsigned 64-bit numbers: negative, zero or positive. */
export function compareFingerprints(
  high: number, low: number, otherHigh: number, otherLow: number,
): number {
  const highOrder = (high >>> 0) - (otherHigh >>> 0);
  return highOrder !== 0 ? highOrder : (low >>> 0) - (otherLow >>> 0);
}
