// Known-answer tests of the digests (issue 10 item 6): the expected values come from outside
// the code under test: the published FNV-1a test vectors (Fowler/Noll/Vo, "FNV test
// vectors", isthe.com/chongo/tech/comp/fnv) and a separate reference implementation here,
// written with BigInt arithmetic instead of the spec's 16-bit limbs.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fnv1a, fnv1a64, fnv1aBytes } from '../../spec/fnv.js';
import { imageDigest, requestDigest } from '../../spec/group/digest.js';
import { SortedArrayMap } from '../../spec/group/ordered-map.js';
import type { DedupRecord } from '../../spec/group/types.js';

/** FNV-1a over UTF-16 code units, with BigInt: the textbook loop, modulo 2^bits. */
function referenceFnv(text: string, bits: 32 | 64): bigint {
  const offset = bits === 32 ? 0x811c9dc5n : 0xcbf29ce484222325n;
  const prime = bits === 32 ? 0x01000193n : 0x100000001b3n;
  const mask = (1n << BigInt(bits)) - 1n;
  let hash = offset;
  for (let index = 0; index < text.length; index++) {
    hash ^= BigInt(text.charCodeAt(index));
    hash = (hash * prime) & mask;
  }
  return hash;
}

const hex64 = (value: bigint) => value.toString(16).padStart(16, '0');

test('FNV-1a 32: the published vectors ("", "a", "foobar")', () => {
  assert.is(fnv1a(''), 0x811c9dc5);
  assert.is(fnv1a('a'), 0xe40c292c);
  assert.is(fnv1a('foobar'), 0xbf9cf968);
});

test('FNV-1a 64: the published vectors ("", "a", "foobar")', () => {
  assert.is(fnv1a64(''), 'cbf29ce484222325');
  assert.is(fnv1a64('a'), 'af63dc4c8601ec8c');
  assert.is(fnv1a64('foobar'), '85944171f73967e8');
});

test('the reference agrees with the published vectors it is checked against', () => {
  assert.is(referenceFnv('foobar', 32), 0xbf9cf968n);
  assert.is(hex64(referenceFnv('foobar', 64)), '85944171f73967e8');
});

test('FNV-1a 32 and 64 equal the BigInt reference on any text (UTF-16 code units)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (text) => {
      assert.is(fnv1a(text), Number(referenceFnv(text, 32)));
      assert.is(fnv1a64(text), hex64(referenceFnv(text, 64)));
    }),
    { numRuns: 500 },
  );
});

test('FNV-1a 32 over bytes is the same hash: the published vector, and ASCII text', () => {
  assert.is(fnv1aBytes(new TextEncoder().encode('foobar')), 0xbf9cf968);
  fc.assert(
    fc.property(fc.string({ unit: 'binary-ascii' }), (text) => {
      assert.is(fnv1aBytes(new TextEncoder().encode(text)), fnv1a(text));
    }),
  );
});

test('requestDigest is FNV-1a 32 of the request as a JSON array', () => {
  const request = { client: 3, seq: 7, op: 'append', key: 'k', value: 'v' } as const;
  assert.is(requestDigest(request), Number(referenceFnv('[3,7,"append","k","v"]', 32)));
});

test('imageDigest is FNV-1a 64 of the KV entries, "|", then the dedup records, as JSON', () => {
  let kv = SortedArrayMap.empty<string, string>();
  kv = kv.set('b', 'B').set('a', 'AA') as typeof kv;
  let dedup = SortedArrayMap.empty<number, DedupRecord>();
  dedup = dedup.set(1, { client: 1, seq: 4, digest: 99, result: 'ok' }) as typeof dedup;
  const text = '["a","AA"]["b","B"]|[1,4,99,"ok"]';
  assert.is(imageDigest(kv, dedup), hex64(referenceFnv(text, 64)));
  // The empty image: the digest of "|" alone (the initial configuration's receipts).
  const none = SortedArrayMap.empty<number, DedupRecord>();
  assert.is(imageDigest(SortedArrayMap.empty(), none), hex64(referenceFnv('|', 64)));
});

test.run();
