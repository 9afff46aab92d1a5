// The end-of-run checks on written values (DESIGN §3 NoLostWrite and ExactlyOnce) and the
// history the simulator hands to lincheck (CONTRACT "Histories").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lincheckText } from '../../checker/lincheck/index.js';
import { parseHistory } from '../../checker/lincheck/history.js';
import { emptyGroup, withShard, type GroupState } from '../../spec/group/index.js';
import { BTreeMap } from '../../spec/group/btree-map.js';
import { HistoryRecorder } from '../../verify/simulate/history.js';
import { checkWrites, finalValues, writeToken } from '../../verify/simulate/write-checks.js';

test('the history gives every call and return its own tick; unfinished operations are unknown',
  () => {
    const history = new HistoryRecorder();
    const put = history.call('client-0', 'put', 'a', writeToken(0, 1));
    const get = history.call('client-1', 'get', 'a');
    history.returned(put);
    const append = history.call('client-0', 'append', 'a', writeToken(0, 2));
    history.returned(get, '<c0.1>');
    history.unknown(append);
    history.call('client-1', 'get', 'a');
    assert.equal(history.counts(), { ok: 2, unknown: 1, pending: 1 });
    const parsed = parseHistory(history.toJsonLines());
    assert.equal(parsed.map((operation) => [operation.call, operation.return, operation.outcome]),
      [[1, 3, 'ok'], [2, 5, 'ok'], [4, undefined, 'unknown'], [6, undefined, 'unknown']]);
    assert.is(lincheckText(history.toJsonLines(), { timeLimitSeconds: 10 }).verdict,
      'linearizable');
  });

function holding(gid: number, phase: 'serving' | 'frozen', epoch: number, value: string) {
  const state = emptyGroup(gid, 10);
  // Shard 7 holds key "a" (first byte 97, 97 mod 10 = 7).
  const kv = BTreeMap.empty<string, string>().set('a', value);
  const identity = { shard: 7, epoch, src: gid, dst: gid };
  return withShard(state, 7, { ...state.shards[7]!, phase, kv, identity });
}

test('a key is read at the group serving its shard, else at its newest frozen holder', () => {
  const groups = new Map<number, GroupState>([
    [100, holding(100, 'frozen', 2, 'old')],
    [101, holding(101, 'frozen', 3, 'newer')],
  ]);
  assert.equal([...finalValues(groups, ['a', 'b'], 10)], [['a', 'newer'], ['b', '']]);
  groups.set(102, holding(102, 'serving', 4, 'served'));
  assert.equal(finalValues(groups, ['a'], 10).get('a'), 'served');
});

test('NoLostWrite: an acknowledged append must be in the value unless a put may follow it',
  () => {
    const history = new HistoryRecorder();
    const first = history.call('client-0', 'append', 'a', '<c0.1>');
    history.returned(first);
    const second = history.call('client-1', 'append', 'a', '<c1.1>');
    history.returned(second);
    assert.is(checkWrites(history.all(), new Map([['a', '<c0.1><c1.1>']])), null);
    assert.equal(checkWrites(history.all(), new Map([['a', '<c0.1>']])), {
      invariant: 'NoLostWrite',
      detail: 'the acknowledged append of <c1.1> on key "a" by client client-1 is not in its ' +
        'value "<c0.1>"',
    });
    // A put of unknown outcome may have overwritten both appends.
    history.unknown(history.call('client-2', 'put', 'a', '<c2.1>'));
    assert.is(checkWrites(history.all(), new Map([['a', '<c2.1>']])), null);
  });

test('NoLostWrite: an acknowledged put begins the value unless another write may follow it',
  () => {
    const history = new HistoryRecorder();
    const put = history.call('client-0', 'put', 'a', '<c0.1>');
    history.returned(put);
    assert.is(checkWrites(history.all(), new Map([['a', '<c0.1>']])), null);
    assert.is(checkWrites(history.all(), new Map([['a', '']]))!.invariant, 'NoLostWrite');
    const append = history.call('client-1', 'append', 'a', '<c1.1>');
    assert.is(checkWrites(history.all(), new Map([['a', '<c0.1><c1.1>']])), null);
    history.returned(append);
    assert.is(checkWrites(history.all(), new Map([['a', '<c1.1>']])), null);
  });

test('ExactlyOnce: a write applied twice is caught', () => {
  const history = new HistoryRecorder();
  history.returned(history.call('client-0', 'append', 'b', '<c0.1>'));
  assert.equal(checkWrites(history.all(), new Map([['b', '<c0.1><c0.1>']])), {
    invariant: 'ExactlyOnce', detail: 'key "b" holds the write <c0.1> twice: <c0.1><c0.1>',
  });
});

test.run();
