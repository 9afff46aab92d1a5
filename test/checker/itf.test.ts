// ITF encoding (Apalache ADR-015) and its TLA+ rendering for people.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { itfToText, toItfValue } from '../../checker/itf.js';

test('ITF values: integers as #bigint, sets and maps canonical, records and sequences', () => {
  const value = toItfValue({
    count: 3,
    big: 10n ** 20n,
    name: 'r1',
    flag: true,
    members: new Set(['b', 'a']),
    votes: new Map([
      [2, 'x'],
      [1, 'y'],
    ]),
    log: [1, 2],
    ratio: 0.5,
    nothing: null,
    skipped: undefined,
    groups: { 10: ['g10-0'], 2: [] },
  });
  assert.equal(value, {
    count: { '#bigint': '3' },
    big: { '#bigint': '100000000000000000000' },
    name: 'r1',
    flag: true,
    members: { '#set': ['a', 'b'] },
    votes: {
      '#map': [
        [{ '#bigint': '1' }, 'y'],
        [{ '#bigint': '2' }, 'x'],
      ],
    },
    log: [{ '#bigint': '1' }, { '#bigint': '2' }],
    ratio: { '#unserializable': '0.5' },
    nothing: { tag: 'None', value: { '#tup': [] } },
    // An object keyed by integers is a function of integers: a map, with canonical order.
    groups: {
      '#map': [
        [{ '#bigint': '10' }, ['g10-0']],
        [{ '#bigint': '2' }, []],
      ],
    },
  });
  assert.is(itfToText(value['nothing' as never]), 'None');
});

test('ITF values render in TLA+ notation', () => {
  const value = toItfValue({
    members: new Set([2, 1]),
    votes: new Map([['s1', true]]),
    log: ['a'],
  });
  assert.is(
    itfToText(value),
    '[members |-> {1, 2}, votes |-> ("s1" :> TRUE), log |-> <<"a">>]'.replace('TRUE', 'true'),
  );
  assert.is(itfToText(toItfValue(new Map())), '<<>>');
  assert.is(itfToText({ '#tup': [{ '#bigint': '1' }, 'x'] }), '<<1, "x">>');
});

test.run();
