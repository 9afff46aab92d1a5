// ITF encoding (Apalache ADR-015) and its TLA+ rendering for people.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { differences, formatDifference } from '../../checker/itf-diff.js';
import { itfToText, toItfValue, type ItfValue } from '../../checker/itf.js';
import { SortedArrayMap } from '../../spec/group/ordered-map.js';

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

test('an ordered map of the spec (an object with entries()) is an ITF map', () => {
  const map = SortedArrayMap.empty<string, string>().set('b', 'B').set('a', 'A');
  assert.equal(toItfValue({ kv: map }), { kv: { '#map': [['a', 'A'], ['b', 'B']] } });
});

const variables = (value: Record<string, unknown>) =>
  toItfValue(value) as Record<string, ItfValue>;
const changes = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  differences(variables(before), variables(after)).map(formatDifference);

test('differences: a grown sequence, a map by key, a record by field (issue 11.7)', () => {
  assert.equal(changes({ configs: [1, 2] }, { configs: [1, 2, 3] }), ['configs[2]: (none) -> 3']);
  assert.equal(changes({ configs: [1, 5] }, { configs: [1] }), ['configs[1]: 5 -> (none)']);
  const bag = (entries: [string, number][]) => ({ messages: new Map(entries) });
  assert.equal(changes(bag([['m1', 1]]), bag([['m1', 2], ['m2', 1]])), [
    'messages["m1"]: 1 -> 2',
    'messages["m2"]: (none) -> 1',
  ]);
  assert.equal(changes({ s: { s1: { term: 1 } } }, { s: { s1: { term: 2 } } }), [
    's.s1.term: 1 -> 2',
  ]);
  // Another kind of value (a sequence becomes a map) is reported whole.
  assert.equal(changes({ p: [] }, { p: new Map([[1, 'x']]) }), ['p: <<>> -> (1 :> "x")']);
});

test.run();
