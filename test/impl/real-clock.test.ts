// The real timers keep the named-timer contract the node shell relies on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RealClock, RealTimers } from '../../impl/real/real-clock.js';
import { entropySeed } from '../../impl/random/entropy-seed.js';

test('a timer set again under its name replaces the first; cancelled ones never fire', async () => {
  const timers = new RealTimers();
  const fired: string[] = [];
  timers.setTimer('election', 5, () => fired.push('first'));
  timers.setTimer('election', 5, () => fired.push('second'));
  timers.setTimer('heartbeat', 5, () => fired.push('heartbeat'));
  timers.cancelTimer('heartbeat');
  timers.setTimer('other', 5, () => fired.push('other'));
  timers.cancelAllTimers();
  timers.setTimer('last', 1, () => fired.push('last'));
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(fired, ['last']);
});

test('the real clock never goes backwards and reads like epoch milliseconds', () => {
  const clock = new RealClock();
  let previous = clock.now();
  for (let index = 0; index < 1000; index++) {
    const now = clock.now();
    assert.ok(now >= previous);
    previous = now;
  }
  assert.ok(Math.abs(clock.now() - Date.now()) < 1000);
  assert.ok(Number.isSafeInteger(entropySeed()));
});

test.run();
