// Issue 23 item 4: conform reads traces as streams. The line reader splits chunks wherever
// they end (a line or a UTF-8 character may straddle two reads) and refuses a cut last line;
// records are compared field by field as their canonical texts would be.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BTreeMap } from '../../spec/group/btree-map.js';
import { canonicalText } from '../../verify/conform/canonical.js';
import { MalformedTraceError } from '../../verify/conform/divergence.js';
import { sameEffects, sameValue } from '../../verify/conform/same-value.js';
import { fileSource } from '../../cli/input.js';
import { traceLines, type TraceSource } from '../../verify/conform/trace-lines.js';
import { scratchDirectory } from '../helpers/scratch.js';

const chunks = (...parts: string[]): TraceSource => () => parts;

test('lines are whole however the chunks fall', () => {
  assert.equal([...traceLines('n', chunks('{"a"', ':1}\n{"b":2}\n', '', '{"c"', ':3}', '\n'))],
    ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.equal([...traceLines('n', chunks(''))], []);
});

test('a last line without its newline is a truncated file', () => {
  assert.throws(() => [...traceLines('g100-0', chunks('{"a":1}\n{"b"'))],
    (error: Error) => error instanceof MalformedTraceError &&
      error.message === 'g100-0.jsonl is truncated: line 2 ends without a newline (the file ' +
        'was cut while it was written)');
});

test('a file read in pieces keeps characters that straddle two reads', () => {
  // Two-byte characters from an odd offset: one of them crosses the 1 MiB read boundary.
  const line = 'x' + 'é'.repeat(600_000);
  const path = join(scratchDirectory('shardkv-streaming-'), 'n.jsonl');
  writeFileSync(path, `${line}\n${line}\n`);
  assert.equal([...traceLines('n', fileSource(path))], [line, line]);
});

test('a file that is not UTF-8 is refused as it is read', () => {
  const path = join(scratchDirectory('shardkv-streaming-'), 'n.jsonl');
  writeFileSync(path, Buffer.from([0x7b, 0x7d, 0x0a, 0xff, 0xfe, 0x0a]));
  assert.throws(() => [...traceLines('n', fileSource(path))],
    (error: Error) => error.message === `${path} is not UTF-8 text`);
  assert.throws(() => fileSource(`${path}.missing`),
    (error: Error) => error.message === `cannot read ${path}.missing: ENOENT`);
});

test('sameValue agrees with the canonical texts', () => {
  const map = (pairs: [string, unknown][]) =>
    pairs.reduce((built, [key, value]) => built.set(key, value), BTreeMap.empty<string, unknown>());
  const pairs: [unknown, unknown][] = [
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }],
    [{ a: 1, gone: undefined }, { a: 1 }],
    [[undefined, 1], [null, 1]],
    [map([['k', 1], ['l', [2]]]), map([['k', 1], ['l', [2]]])],
    [{ m: map([['k', 1]]) }, { m: { $map: [['k', 1]] } }],
    [{ a: 1 }, { a: 2 }],
    [{ a: 1 }, { a: 1, b: 0 }],
    [[1, 2], [2, 1]],
    [map([['k', 1]]), map([['k', 2]])],
    [{ a: [] }, { a: {} }],
    [{ a: null }, { a: 0 }],
    ['1', 1],
  ];
  for (const [a, b] of pairs) {
    const same = canonicalText(a) === canonicalText(b);
    assert.is(sameValue(a, b), same, `${canonicalText(a)} vs ${canonicalText(b)}`);
    assert.is(sameValue(b, a), same, `${canonicalText(b)} vs ${canonicalText(a)}`);
  }
});

test('sameEffects leaves out the message id of a recorded send, and only that', () => {
  const send = { type: 'send', to: 1, message: { type: 'M', term: 2 } };
  assert.ok(sameEffects([send, { type: 'apply' }], [{ ...send, id: 'n:1:3' }, { type: 'apply' }]));
  assert.ok(!sameEffects([send], [{ ...send, to: 2, id: 'n:1:3' }]), 'another receiver');
  assert.ok(!sameEffects([{ ...send, id: 'n:1:3' }], [send]), 'an id the spec made counts');
  assert.ok(!sameEffects([{ type: 'apply', id: 1 }], [{ type: 'apply' }]), 'only on sends');
  assert.ok(!sameEffects([send], [{ ...send, id: 'n:1:3' }, send]), 'another length');
});

test.run();
