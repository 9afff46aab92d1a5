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

test('a timer set again further out fires once, with the last callback, not before its deadline',
  async () => {
    const timers = new RealTimers();
    const fired: string[] = [];
    let lastDeadline = 0;
    const done = new Promise<number>((resolve) => {
      for (const [index, delayMs] of [20, 25, 40, 30].entries()) {
        lastDeadline = performance.now() + delayMs;
        timers.setTimer('election', delayMs, () => {
          fired.push(`set ${index}`);
          resolve(performance.now());
        });
      }
    });
    const firedAt = await done;
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(fired, ['set 3']);
    // Node's millisecond clock may run a timeout up to a millisecond early; never more.
    assert.ok(firedAt >= lastDeadline - 1, `fired ${lastDeadline - firedAt} ms early`);
  });

test('a timer set again sooner fires at the sooner deadline', async () => {
  const timers = new RealTimers();
  const fired: string[] = [];
  await new Promise<void>((resolve) => {
    timers.setTimer('election', 60_000, () => fired.push('late'));
    timers.setTimer('election', 5, () => {
      fired.push('soon');
      resolve();
    });
  });
  timers.cancelAllTimers();
  assert.equal(fired, ['soon']);
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
