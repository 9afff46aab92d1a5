// Known-answer tests of the state fingerprint (issue 10 item 6). The fingerprint is two
// MurmurHash3 (x86, 32-bit) lanes over the state's words with crossed finalisers
// (checker/fingerprint.ts). The expected values come from a separate reference written here
// with BigInt arithmetic, itself checked against MurmurHash3's published test vectors
// (seed 0 / 0x5082EDEE over the bytes 21 43 65 87, and the empty input), so the checker's
// Math.imul code is compared with something it did not produce.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fingerprint, fingerprintHex, fingerprintWords } from '../../checker/fingerprint.js';

const mask32 = 0xffffffffn;
const multiply = (a: bigint, b: bigint) => (a * b) & mask32;
const rotateLeft = (value: bigint, bits: bigint) =>
  ((value << bits) | (value >> (32n - bits))) & mask32;

function referenceMix(hash: bigint, block: bigint): bigint {
  let k = multiply(block, 0xcc9e2d51n);
  k = rotateLeft(k, 15n);
  k = multiply(k, 0x1b873593n);
  const mixed = rotateLeft(hash ^ k, 13n);
  return (multiply(mixed, 5n) + 0xe6546b64n) & mask32;
}

function referenceFinal(hash: bigint): bigint {
  let h = hash & mask32;
  h ^= h >> 16n;
  h = multiply(h, 0x85ebca6bn);
  h ^= h >> 13n;
  h = multiply(h, 0xc2b2ae35n);
  return h ^ (h >> 16n);
}

/** MurmurHash3_x86_32 of whole 4-byte blocks (little-endian), as published. */
function referenceMurmur(blocks: readonly number[], seed: number): bigint {
  let hash = BigInt(seed >>> 0);
  for (const block of blocks) hash = referenceMix(hash, BigInt(block >>> 0));
  return referenceFinal(hash ^ BigInt(blocks.length * 4));
}

/** The checker's fingerprint, recomputed from its description with the reference's parts. */
function referenceFingerprint(words: readonly number[]): string {
  let high = 0x9747b28cn;
  let low = 0x2f1d3c5bn;
  for (const word of words) {
    high = referenceMix(high, BigInt(word >>> 0));
    low = referenceMix(low, BigInt((word ^ 0x5bd1e995) >>> 0));
  }
  const length = BigInt(words.length);
  const finalHigh = referenceFinal(high ^ length);
  const finalLow = referenceFinal(((low ^ length) + finalHigh) & mask32);
  const crossed = referenceFinal((finalHigh + finalLow) & mask32);
  // Zero marks an empty slot: a zero word is stored as one.
  const [highPart, lowPart] = [crossed, finalLow].map((word) => (word === 0n ? 1n : word));
  return highPart!.toString(16).padStart(8, '0') + lowPart!.toString(16).padStart(8, '0');
}

test('the reference MurmurHash3 gives the published test vectors', () => {
  assert.is(referenceMurmur([], 0), 0n);
  assert.is(referenceMurmur([], 1), 0x514e28b7n);
  assert.is(referenceMurmur([], 0xffffffff), 0x81f16f39n);
  assert.is(referenceMurmur([0x87654321], 0), 0xf55b516bn);
  assert.is(referenceMurmur([0x87654321], 0x5082edee), 0x2362f9den);
  assert.is(referenceMurmur([0], 0), 0x2362f9den);
});

test('fingerprintWords equals the reference on any words (known answers included)', () => {
  const check = (words: readonly number[]) => {
    fingerprintWords(Int32Array.from(words), 0, words.length);
    assert.is(fingerprintHex(fingerprint.high, fingerprint.low), referenceFingerprint(words));
  };
  check([]);
  check([0]);
  check([1, 2, 3]);
  check([-1, 0x7fffffff, -0x80000000]);
  fc.assert(fc.property(fc.array(fc.integer(), { maxLength: 40 }), (words) => check(words)), {
    numRuns: 300,
  });
});

test.run();
