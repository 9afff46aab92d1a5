// The simulator's event log: a digest over every line, the last lines for a failure report.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bytesDigest, EventLog, tailLinesMax } from '../../verify/simulate/event-log.js';

test('the digest covers every line and its order; the tail keeps the last lines in order', () => {
  const first = new EventLog(true);
  const second = new EventLog(false);
  for (let index = 0; index < 100; index++) {
    first.add(index, 'ctl-0', `event ${index}`);
    second.add(index, 'ctl-0', `event ${index}`);
  }
  assert.is(first.digest(), second.digest());
  assert.is(first.digest().length, 16);
  assert.is(first.lines()!.length, 100);
  assert.is(second.lines(), null);
  const tail = second.lastLines();
  assert.is(tail.length, tailLinesMax);
  assert.is(tail[0], `${100 - tailLinesMax} ctl-0 event ${100 - tailLinesMax}`);
  assert.is(tail.at(-1), '99 ctl-0 event 99');
  const swapped = new EventLog(false);
  swapped.add(0, 'a', 'y');
  swapped.add(0, 'a', 'x');
  const ordered = new EventLog(false);
  ordered.add(0, 'a', 'x');
  ordered.add(0, 'a', 'y');
  assert.is.not(swapped.digest(), ordered.digest());
  assert.throws(() => ordered.add(1, 'a', 'two\nlines'));
});

test('a frame digest is FNV-1a over its bytes', () => {
  // FNV-1a 32-bit of "a" is 0xe40c292c (the published test vector).
  assert.is(bytesDigest(new TextEncoder().encode('a')), 'e40c292c');
  assert.is(bytesDigest(new Uint8Array()), '811c9dc5');
});

test.run();
