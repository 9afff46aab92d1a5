// spec/client/attempt-timeout.ts: an attempt's timeout grows with what the request carries
// and brings back, doubles per silent retry, and stays within its bounds whatever the jitter.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  attemptTimeoutMs, defaultAttemptTimeouts, requestBytes,
} from '../../spec/client/attempt-timeout.js';
import type { ClientRequest } from '../../spec/group/types.js';

const request = (op: ClientRequest['op'], value: string): ClientRequest =>
  ({ client: 1, seq: 1, op, key: 'kk', value });

test('a get counts the value it should bring back; a put or append what it carries', () => {
  assert.is(requestBytes(request('get', ''), 5_000), 2 + 5_000);
  assert.is(requestBytes(request('get', '')), 2);
  assert.is(requestBytes(request('put', 'é'), 5_000), 2 + 2);
  assert.is(requestBytes(request('append', 'xyz'), 5_000), 2 + 3);
});

test('a 1 MiB get waits 2 s more than an empty one; back-off doubles up to the cap', () => {
  const empty = attemptTimeoutMs(defaultAttemptTimeouts, 0, 0, 0);
  assert.is(empty, 250);
  assert.is(attemptTimeoutMs(defaultAttemptTimeouts, 2 ** 20, 0, 0), 2_250);
  assert.is(attemptTimeoutMs(defaultAttemptTimeouts, 0, 3, 0), 2_000);
  assert.is(attemptTimeoutMs(defaultAttemptTimeouts, 24 * 2 ** 20, 0, 0), 8_000);
});

test('property: within [base, max], monotone in size and in retries', () => {
  const settings = defaultAttemptTimeouts;
  fc.assert(fc.property(
    fc.nat(64 * 2 ** 20), fc.nat(64 * 2 ** 20), fc.nat(30), fc.double({ min: 0, max: 0.999, noNaN: true }),
    (small, extra, retry, jitter) => {
      const base = attemptTimeoutMs(settings, small, retry, jitter);
      assert.ok(base >= settings.baseMs && base <= settings.maxMs);
      assert.ok(attemptTimeoutMs(settings, small + extra, retry, jitter) >= base);
      assert.ok(attemptTimeoutMs(settings, small, retry + 1, jitter) >= base);
    }));
});

test.run();
