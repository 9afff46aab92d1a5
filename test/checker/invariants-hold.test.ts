// Model.invariantsHold: every invariant judged at once. When it says they all hold, the
// checker asks none of them; when it says one fails, the checker names the first failing one,
// so verdict, trace and counts equal those of the model without it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import type { Invariant, Model } from '../../checker/model.js';
import { plainCodec } from '../../checker/plain-codec.js';

/** A counter stepping by 1 or 3 up to 12; `Below7` and `NotNine` fail on the way. */
function counter(calls: { one: number; all: number }, withHook: boolean): Model<number, number> {
  const invariants: Invariant<number>[] = [
    { name: 'NotNine', holds: (state) => (calls.one++, state !== 9) },
    { name: 'Below7', holds: (state) => (calls.one++, state < 7) },
  ];
  return {
    name: 'counter',
    initialStates: () => [0],
    actions: () => [1, 3],
    next: (state, step) => (state + step <= 12 ? state + step : null),
    label: (step) => `Add(${step})`,
    invariants,
    ...(withHook
      ? { invariantsHold: (state: number) => (calls.all++, state !== 9 && state < 7) }
      : {}),
    isTerminal: (state) => state >= 10,
    codec: plainCodec<number>(),
  };
}

test('invariantsHold: the same verdict, trace and counts as the invariants one by one', () => {
  const plainCalls = { one: 0, all: 0 };
  const hookCalls = { one: 0, all: 0 };
  const plain = breadthFirstSearch(counter(plainCalls, false));
  const hooked = breadthFirstSearch(counter(hookCalls, true));
  assert.is(plain.invariant, 'Below7');
  assert.equal(hooked, { ...plain, seconds: hooked.seconds });
  assert.ok(hookCalls.all > 0);
  // Asked one by one only in the states where the hook saw a failure (7, 8 and 9 here).
  assert.ok(hookCalls.one < plainCalls.one, `${hookCalls.one} against ${plainCalls.one}`);
});

test('invariantsHold false, the invariant is still named by the list', () => {
  const calls = { one: 0, all: 0 };
  const result = breadthFirstSearch(counter(calls, true), { continueAfterViolation: true });
  assert.is(result.result, 'violation');
  assert.is(result.invariant, 'Below7');
  assert.is(result.distinctStates, 13);
});

test.run();
