// The persistent vector of spec/raft/log-entries.ts against the array it stands for (issue 21
// item 4): random appends, truncations and compactions keep the same entries as the array
// operations did, old values never change, and the shape is the canonical one (equal logs
// are deeply equal records), across the trie's levels (32, 1,024, 32,768 entries).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { AssertionError } from '../../spec/assert.js';
import {
  appendedLogEntries,
  emptyLogEntries,
  firstLogEntries,
  logEntriesArray,
  logEntriesFrom,
  logEntriesOf,
  logEntriesSlice,
  logEntryAt,
  type LogEntries,
} from '../../spec/raft/log-entries.js';
import type { Entry } from '../../spec/raft/types.js';

const entries = (from: number, count: number): Entry<number>[] =>
  Array.from({ length: count }, (_, at) => ({ term: 1 + ((from + at) >> 7), command: from + at }));

/** The log built by appending its entries one at a time: the canonical shape. */
function oneByOne(all: readonly Entry<number>[]): LogEntries<number> {
  let log = emptyLogEntries<number>();
  for (const entry of all) log = appendedLogEntries(log, [entry]);
  return log;
}

type Operation =
  | { readonly kind: 'append'; readonly count: number }
  | { readonly kind: 'keep'; readonly fraction: number }
  | { readonly kind: 'drop'; readonly fraction: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), count: fc.oneof(
    fc.integer({ min: 0, max: 40 }), fc.integer({ min: 900, max: 1_200 })) }),
  fc.record({ kind: fc.constant('keep' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('drop' as const), fraction: fc.double({ min: 0, max: 0.3, noNaN: true }) }),
);

test('appends, truncations and compactions keep what the array operations keep', () => {
  fc.assert(fc.property(fc.array(operation, { maxLength: 12 }), (operations) => {
    let log = emptyLogEntries<number>();
    let array: Entry<number>[] = [];
    const history: { log: LogEntries<number>; array: Entry<number>[] }[] = [];
    let next = 0;
    for (const op of operations) {
      if (op.kind === 'append') {
        const added = entries(next, op.count);
        next += op.count;
        log = appendedLogEntries(log, added);
        array = array.concat(added);
      } else if (op.kind === 'keep') {
        const count = Math.floor(op.fraction * array.length);
        log = firstLogEntries(log, count);
        array = array.slice(0, count);
      } else {
        const position = Math.floor(op.fraction * array.length);
        log = logEntriesFrom(log, position);
        array = array.slice(position);
      }
      history.push({ log, array });
      assert.is(log.length, array.length);
      assert.equal(log, oneByOne(array), 'the canonical shape');
    }
    // Every earlier value still holds what it held: nothing was changed in place.
    for (const { log: old, array: held } of history) assert.equal(logEntriesArray(old), held);
  }), { numRuns: 60 });
});

test('reads at and around every leaf boundary of a four-level trie', () => {
  const all = entries(0, 33_000);
  const log = logEntriesOf(all);
  assert.equal(log, oneByOne(all));
  assert.is(log.shift, 15, 'leaves, nodes of 32 leaves, nodes of those, a root of two');
  for (const position of [0, 31, 32, 1023, 1024, 1025, 32_767, 32_768, 32_999]) {
    assert.is(logEntryAt(log, position), all[position]);
  }
  assert.is(logEntryAt(log, -1), undefined);
  assert.is(logEntryAt(log, 33_000), undefined);
  assert.equal(logEntriesSlice(log, 1_000, 1_100), all.slice(1_000, 1_100));
  assert.equal(logEntriesSlice(log, 5, 5), []);
  const kept = firstLogEntries(log, 1_024);
  assert.is(kept.shift, 5, 'a truncation lowers the trie');
  assert.equal(kept, oneByOne(all.slice(0, 1_024)));
  const cut = firstLogEntries(log, 2_050);
  assert.is(cut.shift, 10, 'cut inside the second node of the level below the root');
  assert.equal(cut, oneByOne(all.slice(0, 2_050)));
});

test('an append shares every full leaf before it', () => {
  const log = logEntriesOf(entries(0, 2_000));
  const longer = appendedLogEntries(log, entries(2_000, 1));
  assert.is(leafAt(longer, 0), leafAt(log, 0));
  assert.is(leafAt(longer, 1), leafAt(log, 1));
  assert.is(appendedLogEntries(log, []), log);
  assert.is(firstLogEntries(log, log.length), log);
  assert.is(logEntriesFrom(log, 0), log);
});

/** The first leaf under the root's child `child` (a log of more than 1,024 entries). */
function leafAt(log: LogEntries<number>, child: number): unknown {
  return (log.root[child] as readonly unknown[])[0];
}

test('out-of-range truncations and slices are assertion failures', () => {
  const log = logEntriesOf(entries(0, 10));
  const failure = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error instanceof AssertionError ? error.message : 'another error';
    }
    return 'none';
  };
  assert.is(failure(() => firstLogEntries(log, 11)), 'keeping 11 of 10 entries');
  assert.is(failure(() => logEntriesFrom(log, 11)), 'dropping 11 of 10 entries');
  assert.is(failure(() => logEntriesSlice(log, 0, 11)), 'slice 0..11 outside 10 entries');
});

test.run();
