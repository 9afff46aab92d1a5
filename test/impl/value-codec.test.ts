// The binary value codec (impl/codec/value-codec.ts) against the JSON one (node/json-maps.ts):
// round trips give back the value, the same value JSON's round trip gives (maps as B+ trees,
// omitted fields, non-finite numbers as null); random bytes and truncations are a CodecError,
// never another exception and never a value.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CodecError } from '../../impl/codec/byte-stream.js';
import { decodeValue, encodeValue, nestingDepthMax } from '../../impl/codec/value-codec.js';
import { parseWithMaps, stringifyWithMaps } from '../../impl/node/json-maps.js';
import { BTreeMap } from '../../spec/group/btree-map.js';

const text = fc.string({ unit: 'grapheme', maxLength: 20 });
const mapOf = (keys: fc.Arbitrary<string | number>, value: fc.Arbitrary<unknown>) =>
  fc.uniqueArray(fc.tuple(keys, value), { selector: ([key]) => key, maxLength: 6 })
    .map((pairs) => {
      let map = BTreeMap.empty<string | number, unknown>();
      for (const [key, entry] of pairs) map = map.set(key, entry);
      return map;
    });

/** JSON-like values as the protocol builds them, with maps and what JSON drops or nulls. */
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, undefined),
    fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.nat(1000), fc.double(), text,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(text, tie('value'), { maxKeys: 5 }),
    mapOf(text, tie('value')), mapOf(fc.integer(), tie('value'))),
}));

const viaJson = (input: unknown): unknown => parseWithMaps(stringifyWithMaps(input));

function throwsCodecError(decode: () => unknown): boolean {
  try {
    decode();
    return false;
  } catch (error) {
    if (error instanceof CodecError) return true;
    throw error;
  }
}

test('a round trip gives what the JSON codec gives, maps and all', () => {
  // In an array: JSON has no text for a top-level undefined.
  fc.assert(fc.property(value.map((element) => [element]), (input) => {
    const decoded = decodeValue(encodeValue(input));
    const expected = viaJson(input);
    assert.equal(decoded, expected);
    assert.is(stringifyWithMaps(decoded), stringifyWithMaps(expected));
    assert.equal(decodeValue(encodeValue(decoded)), decoded, 'a decoded value round-trips');
  }), { numRuns: 2000 });
});

test('byte arrays go raw and come back as byte arrays', () => {
  const bytes = Uint8Array.from([0, 255, 34, 92, 10]);
  const encoded = encodeValue({ data: bytes });
  // Version, object tag, one field, "data" with its length, bytes tag and length: 10 bytes.
  assert.is(encoded.length, 10 + bytes.length);
  assert.equal(decodeValue(encoded), { data: bytes });
});

test('a field named __proto__ is a field, as JSON.parse makes it', () => {
  const input = JSON.parse('{"__proto__":{"polluted":1}}') as object;
  const decoded = decodeValue(encodeValue(input)) as Record<string, unknown>;
  assert.equal(Object.keys(decoded), ['__proto__']);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('random bytes are a value or a CodecError, nothing else', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
    const withVersion = Uint8Array.of(1, ...bytes);
    for (const input of [bytes, withVersion]) {
      try {
        decodeValue(input);
      } catch (error) {
        assert.instance(error, CodecError);
      }
    }
  }), { numRuns: 5000 });
});

test('every truncation of an encoding is a CodecError (the encoding is prefix-free)', () => {
  fc.assert(fc.property(value, (input) => {
    const encoded = encodeValue(input);
    for (let length = 0; length < encoded.length; length++) {
      assert.ok(throwsCodecError(() => decodeValue(encoded.subarray(0, length))), `${length}`);
    }
    assert.ok(throwsCodecError(() => decodeValue(Uint8Array.of(...encoded, 0))), 'trailing');
  }), { numRuns: 500 });
});

test('malformed maps, versions, lengths and nesting are refused', () => {
  const descending = Uint8Array.of(1, 8, 2, 3, 4, 0, 3, 2, 0);
  const mixedKeys = Uint8Array.of(1, 8, 2, 3, 2, 0, 5, 1, 97, 0);
  const hugeArray = Uint8Array.of(1, 6, 0xff, 0xff, 0xff, 0x0f);
  const longVarint = Uint8Array.of(1, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1);
  const badUtf8 = Uint8Array.of(1, 5, 1, 0xff);
  const deep = Uint8Array.of(1, ...Array<number>(nestingDepthMax + 1).fill(6).flatMap((tag) =>
    [tag, 1]), 0);
  for (const bytes of [descending, mixedKeys, hugeArray, longVarint, badUtf8, deep,
    Uint8Array.of(2, 0)]) {
    assert.ok(throwsCodecError(() => decodeValue(bytes)), String(bytes));
  }
  assert.equal(decodeValue(Uint8Array.of(1, 8, 2, 3, 2, 0, 3, 4, 1)),
    BTreeMap.empty().set(1, null).set(2, false));
});

test.run();
