// The generic Wing–Gong–Lowe search: other models, the time limit, memoisation at scale.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkOperations } from '../../checker/lincheck/check.js';
import { generateHistory, seededChoose } from '../../checker/lincheck/generate.js';
import { lincheckHistory, verdictPhrase } from '../../checker/lincheck/index.js';
import type { Operation, SequentialModel } from '../../checker/lincheck/model.js';
import { checkPartition } from '../../checker/lincheck/search.js';
import { SeenSet } from '../../checker/lincheck/seen-set.js';

/** A counter whose increment returns the new value: no partition, plain numbers as states. */
const counter: SequentialModel<number, 'increment' | 'read', number> = {
  name: 'counter',
  init: () => 0,
  step: (state, input, output) => {
    const after = input === 'increment' ? state + 1 : state;
    return output === undefined || output === after ? after : undefined;
  },
  hash: (state) => state,
  equal: (left, right) => left === right,
  describeOperation: (operation) => `${operation.input} -> ${operation.output}`,
  describeState: (state) => String(state),
};

function operation(
  id: number, input: 'increment' | 'read', output: number | undefined, call: number, ret: number,
): Operation<'increment' | 'read', number> {
  return { id, client: String(id), input, output, call, return: ret };
}

test('a model without partition: concurrent increments may return in either order', () => {
  const report = checkOperations(counter, [
    operation(0, 'increment', 2, 0, 10),
    operation(1, 'increment', 1, 1, 9),
    operation(2, 'read', 2, 11, 12),
  ], { deadline: Infinity });
  assert.is(report.verdict, 'linearizable');
  assert.is(report.partitions.length, 1);
  assert.is(report.partitions[0]!.name, '');
  assert.equal(report.partitions[0]!.result!.prefix, [1, 0, 2]);
});

test('a counter read that no order explains: the longest prefix and the failing read', () => {
  const operations = [
    operation(0, 'increment', 1, 0, 1),
    operation(1, 'read', 0, 2, 3),
    operation(2, 'increment', 2, 4, 5),
  ];
  const result = checkPartition(counter, operations, Infinity);
  assert.equal(result, { verdict: 'not-linearizable', prefix: [0], failing: 1, configurations: 1 });
});

test('the time limit gives verdict unknown, never a pass', () => {
  const history = generateHistory({ operations: 3000, clients: 10, keys: 1 }, seededChoose(7));
  const result = lincheckHistory(history, { timeLimitSeconds: 1e-9 });
  assert.is(result.verdict, 'unknown');
  assert.is(result.reason, 'time-limit');
  assert.is(result.key, 'k0');
  const prefix = result.report.partitions[0]!.result!.prefix;
  assert.ok(prefix.length < 3000, `prefix ${prefix.length}`);
  assert.is(result.explanation!.prefix.length, prefix.length);
  assert.is(result.explanation!.failing, undefined);
});

test('with several keys, a failure stops the search: keys left unchecked have no result', () => {
  const history = generateHistory({ operations: 400, clients: 5, keys: 4 }, seededChoose(3));
  const target = history.findIndex((operation) => operation.op === 'get' && operation.key === 'k0');
  const corrupted = history.map((entry, index) =>
    index === target ? { ...entry, output: '!' } : entry);
  const result = lincheckHistory(corrupted, { timeLimitSeconds: 60 });
  assert.is(result.verdict, 'not-linearizable');
  assert.is(result.key, 'k0');
  const unchecked = result.report.partitions.filter((partition) => partition.result === undefined);
  assert.ok(unchecked.length >= 1 && unchecked.length <= 3, `unchecked ${unchecked.length}`);
});

test('1,000 operations on one key with 10 clients and unknown outcomes: linearizable', () => {
  const history = generateHistory({ operations: 1000, clients: 10, keys: 1, unknownRate: 0.02 },
    seededChoose(11));
  assert.ok(history.some((entry) => entry.outcome === 'unknown'));
  const result = lincheckHistory(history, { timeLimitSeconds: 60 });
  assert.is(result.verdict, 'linearizable');
  assert.ok(result.report.partitions[0]!.result!.configurations >= 1000);
});

test('the memory bound gives verdict unknown, never another verdict', () => {
  const history = generateHistory({ operations: 1000, clients: 10, keys: 1, unknownRate: 0.02 },
    seededChoose(11));
  assert.is(lincheckHistory(history, { timeLimitSeconds: 60 }).verdict, 'linearizable');
  const bounded = lincheckHistory(history, { timeLimitSeconds: 60, bytesMax: 256 * 1024 });
  assert.is(bounded.verdict, 'unknown');
  assert.is(bounded.reason, 'memory-bound');
  assert.is(bounded.key, 'k0');
  assert.is(verdictPhrase(bounded),
    'the history is unknown (the search reached its memory bound) on key "k0"');
  assert.is(verdictPhrase({ verdict: 'unknown', reason: 'time-limit' }),
    'the history is unknown (the time limit ran out)');
  // A history that is not linearizable stays so, or becomes unknown: never linearizable.
  const target = history.findIndex((entry) => entry.op === 'get' && entry.output !== undefined
    && entry.output !== '' && entry.call > history[500]!.call);
  const corrupted = history.map((entry, index) =>
    index === target ? { ...entry, output: `${entry.output}!` } : entry);
  assert.is(lincheckHistory(corrupted, { timeLimitSeconds: 60 }).verdict, 'not-linearizable');
  const small = lincheckHistory(corrupted, { timeLimitSeconds: 60, bytesMax: 256 * 1024 });
  assert.is(small.verdict, 'unknown');
  assert.is(small.reason, 'memory-bound');
});

test('a bounded memo table never outgrows its bound: it says it is exhausted instead', () => {
  const bytesMax = 200 * 1024;
  const seen = new SeenSet<number>({ equal: (left, right) => left === right }, bytesMax);
  const window = new Int32Array(16).map((_, index) => index + 2);
  let added = 0;
  while (!seen.exhausted) {
    assert.ok(seen.insert(added * 7919, added, 0, window, added % 16, added));
    assert.ok(seen.bytes <= bytesMax, `${seen.bytes} bytes`);
    added++;
  }
  assert.ok(added > 1000, `${added} entries`);
  assert.is(seen.size, added - 1);
  // Every entry that was added is still there; the one refused is not.
  assert.not.ok(seen.insert(0, 0, 0, window, 0, 0));
  seen.clear();
  assert.not.ok(seen.exhausted);
});

test.run();
