// Verdicts of `lincheck` on small exact histories and on the Porcupine corpus (issue 6).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { explanationLines, lincheckText } from '../../checker/lincheck/index.js';
import { quoted } from '../../checker/lincheck/kv-model.js';

const corpus = new URL('../../corpus/lincheck/', import.meta.url);

function check(lines: readonly object[]): ReturnType<typeof lincheckText> {
  const text = lines.map((line) => JSON.stringify(line)).join('\n');
  return lincheckText(text, { timeLimitSeconds: 60 });
}

const manifest = JSON.parse(readFileSync(new URL('manifest.json', corpus), 'utf8')) as
  { file: string; ops: number; linearizable: boolean }[];

for (const entry of manifest) {
  test(`corpus ${entry.file}: ${entry.linearizable ? 'linearizable' : 'not linearizable'}`, () => {
    const result = lincheckText(readFileSync(new URL(entry.file, corpus), 'utf8'),
      { timeLimitSeconds: 60 });
    assert.is(result.operations, entry.ops);
    assert.is(result.verdict, entry.linearizable ? 'linearizable' : 'not-linearizable');
  });
}

test('corpus c01-bad: the explanation names key "7", its prefix and the failing read', () => {
  const result = lincheckText(readFileSync(new URL('porcupine-c01-bad.jsonl', corpus), 'utf8'),
    { timeLimitSeconds: 60 });
  assert.is(result.key, '7');
  assert.equal(explanationLines(result.explanation!), [
    'key "7": the longest linearizable prefix has 3 of its 5 operations:',
    '  1. line 2: client 0: get("7") -> ""',
    '  2. line 19: client 0: append("7", "x 0 0 y")',
    '  3. line 28: client 0: append("7", "x 0 3 y")',
    'after it the key holds "x 0 0 yx 0 3 y"',
    'and this operation cannot follow: line 30: client 0: get("7") -> "x 0 0 y"',
  ]);
});

// The bar on unknown outcomes, part 1: the read is explained only by the unknown write.
test('linearizable only if an unknown-outcome write took effect: linearizable', () => {
  const result = check([
    { client: 'a', op: 'put', key: 'k', value: 'w', call: 0, outcome: 'unknown' },
    { client: 'b', op: 'get', key: 'k', output: 'w', call: 5, return: 6 },
  ]);
  assert.is(result.verdict, 'linearizable');
  assert.equal(result.report.partitions[0]!.result!.prefix, [0, 1]);
});

// Part 2: the same value read before the write was even called.
test('the unknown write\'s value read before its call: not linearizable, read explained', () => {
  const result = check([
    { client: 'b', op: 'get', key: 'k', output: 'w', call: 0, return: 1 },
    { client: 'a', op: 'put', key: 'k', value: 'w', call: 2, outcome: 'unknown' },
  ]);
  assert.is(result.verdict, 'not-linearizable');
  assert.is(result.key, 'k');
  assert.equal(result.explanation, {
    key: 'k', prefix: [], state: '""', keyOperations: 2,
    failing: { line: 1, description: 'client b: get("k") -> "w"' },
  });
});

test('an unknown write may never take effect', () => {
  assert.is(check([
    { client: 'a', op: 'put', key: 'k', value: 'w', call: 0, outcome: 'unknown' },
    { client: 'b', op: 'get', key: 'k', output: '', call: 5, return: 6 },
    { client: 'b', op: 'get', key: 'k', output: '', call: 7, return: 8 },
  ]).verdict, 'linearizable');
});

test('an unknown append may take effect long after its call, after later writes', () => {
  const history = [
    { client: 'a', op: 'append', key: 'k', value: 'x', call: 0, outcome: 'unknown' },
    { client: 'b', op: 'put', key: 'k', value: 'y', call: 1, return: 2 },
    { client: 'b', op: 'get', key: 'k', output: 'y', call: 3, return: 4 },
    { client: 'b', op: 'get', key: 'k', output: 'yx', call: 5, return: 6 },
  ];
  assert.is(check(history).verdict, 'linearizable');
  // Once seen, an effect cannot be undone: reading "y" again afterwards is impossible.
  const undone = [...history,
    { client: 'b', op: 'get', key: 'k', output: 'y', call: 7, return: 8 }];
  const result = check(undone);
  assert.is(result.verdict, 'not-linearizable');
  assert.equal(result.explanation!.failing, { line: 5, description: 'client b: get("k") -> "y"' });
  assert.is(result.explanation!.state, '"yx"');
});

// Found by the brute-force oracle: a put that leaves the current value unchanged is not a read;
// taking it at once (as reads are) would lose the order append, append, put, get.
test('a write that keeps the current value is not forced like a read', () => {
  assert.is(check([
    { client: 0, op: 'put', key: 'k', value: 'a', call: 0, outcome: 'unknown' },
    { client: 0, op: 'append', key: 'k', value: 'a', call: 1, return: 1 },
    { client: 1, op: 'get', key: 'k', output: 'a', call: 2, return: 2 },
    { client: 0, op: 'append', key: 'k', value: 'a', call: 1, return: 1 },
  ]).verdict, 'linearizable');
});

test('a get with unknown outcome constrains nothing', () => {
  assert.is(check([
    { client: 'a', op: 'get', key: 'k', call: 0, outcome: 'unknown' },
    { client: 'b', op: 'put', key: 'k', value: 'v', call: 1, return: 2 },
  ]).verdict, 'linearizable');
});

test('a stale read after a completed write is not linearizable; keys are independent', () => {
  const result = check([
    { client: 1, op: 'put', key: 'a', value: '1', call: 0, return: 1 },
    { client: 1, op: 'put', key: 'b', value: '2', call: 2, return: 3 },
    { client: 2, op: 'get', key: 'a', output: '1', call: 4, return: 5 },
    { client: 2, op: 'get', key: 'b', output: '', call: 6, return: 7 },
  ]);
  assert.is(result.verdict, 'not-linearizable');
  assert.is(result.key, 'b');
  assert.is(result.keys, 2);
  assert.equal(result.explanation!.prefix, [{ line: 2, description: 'client 1: put("b", "2")' }]);
});

test('concurrent operations may be ordered either way; touching times count as concurrent', () => {
  assert.is(check([
    { client: 1, op: 'put', key: 'k', value: '1', call: 0, return: 10 },
    { client: 2, op: 'get', key: 'k', output: '', call: 10, return: 11 },
    { client: 3, op: 'get', key: 'k', output: '1', call: 2, return: 3 },
  ]).verdict, 'not-linearizable');
  assert.is(check([
    { client: 1, op: 'put', key: 'k', value: '1', call: 0, return: 10 },
    { client: 2, op: 'get', key: 'k', output: '', call: 10, return: 11 },
  ]).verdict, 'linearizable');
});

test('an empty history is linearizable', () => {
  const result = lincheckText('', { timeLimitSeconds: 60 });
  assert.is(result.verdict, 'linearizable');
  assert.is(result.keys, 0);
});

test('an explanation writes a long run of one character as its count (padded values)', () => {
  const padded = '<c2.12>' + '.'.repeat(4089) + '<c9.17>' + '.'.repeat(15);
  assert.is(quoted(padded), `"<c2.12>.{4089 x}<c9.17>${'.'.repeat(15)}"`);
  assert.is(quoted('x 0 0 y'), '"x 0 0 y"');
});

test.run();
