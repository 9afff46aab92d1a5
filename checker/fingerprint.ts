/**
 * 64-bit fingerprints of encoded states, as two 32-bit halves.
 *
 * Two MurmurHash3 lanes with different seeds run over the words, and their finalisers are
 * crossed so that each half depends on both lanes. With n states the chance that any two
 * collide is about n^2 / 2^65: 1e-5 for 28 million states, TLC's own order of magnitude.
 * The result is returned in `fingerprint.high` / `fingerprint.low` to avoid an allocation per
 * state in the hot loop.
 */
export const fingerprint = { high: 0, low: 0 };

const seedHigh = 0x9747b28c;
const seedLow = 0x2f1d3c5b;
const c1 = 0xcc9e2d51;
const c2 = 0x1b873593;

function mixWord(hash: number, word: number): number {
  let k = Math.imul(word, c1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, c2);
  hash ^= k;
  hash = (hash << 13) | (hash >>> 19);
  return (Math.imul(hash, 5) + 0xe6546b64) | 0;
}

function finalMix(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/**
 * A fingerprint word with zero moved to one. Zero marks an empty slot in both visited sets
 * (fingerprint-set.ts, shared-fingerprint-set.ts), and one rule for every search keeps a
 * checkpoint's fingerprints the same on any number of workers. The price is a collision
 * between fingerprints that differ only by a 0 and a 1 in a word: a word is then 1 with
 * probability 2^-31 instead of 2^-32, so two states collide with probability
 * 2^-64 (1 + 2^-31)^2 instead of 2^-64, a relative increase of 2^-30 (the 1e-5 above
 * becomes 1e-5 + 1e-14).
 */
export function nonZeroWord(word: number): number {
  return word === 0 ? 1 : word;
}

/** Fingerprints words[start, end) into `fingerprint`; neither word is zero (`nonZeroWord`). */
export function fingerprintWords(words: Int32Array, start: number, end: number): void {
  let high = seedHigh;
  let low = seedLow;
  for (let index = start; index < end; index++) {
    const word = words[index]!;
    high = mixWord(high, word);
    low = mixWord(low, word ^ 0x5bd1e995);
  }
  const length = end - start;
  high = finalMix(high ^ length);
  low = finalMix((low ^ length) + high);
  high = finalMix(high + low);
  fingerprint.high = nonZeroWord(high);
  fingerprint.low = nonZeroWord(low);
}

/** The fingerprint as a 16-digit hex string, for messages and tests. */
export function fingerprintHex(high: number, low: number): string {
  return (high >>> 0).toString(16).padStart(8, '0') + (low >>> 0).toString(16).padStart(8, '0');
}
