// The search against a brute-force oracle on small random histories of both verdicts: every
// order that respects real time is tried, and unknown writes may be left out. This checks the
// memoisation, the forced reads and the unknown-outcome rules for exactness.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HistoryOperation } from '../../checker/lincheck/history.js';
import { lincheckHistory } from '../../checker/lincheck/index.js';

interface Step {
  readonly client: number;
  readonly op: 'get' | 'put' | 'append';
  readonly text: string;
  readonly gap: number;
  readonly duration: number;
  readonly unknown: boolean;
}

const step = fc.record({
  client: fc.integer({ min: 0, max: 2 }),
  op: fc.constantFrom('get' as const, 'put' as const, 'append' as const),
  text: fc.constantFrom('', 'a', 'b', 'ab', 'ba', 'aa', 'bab'),
  gap: fc.integer({ min: 0, max: 3 }),
  duration: fc.integer({ min: 0, max: 6 }),
  unknown: fc.boolean(),
});

function toHistory(steps: readonly Step[]): HistoryOperation[] {
  const clock = [0, 0, 0];
  return steps.map((entry, index) => {
    const call = clock[entry.client]! + entry.gap;
    clock[entry.client] = call + entry.duration;
    const value = entry.op === 'get' ? undefined : entry.text.slice(0, 1) || 'a';
    const output = entry.op === 'get' && !entry.unknown ? entry.text : undefined;
    return {
      client: String(entry.client), op: entry.op, key: 'k', value, output, call,
      return: entry.unknown ? undefined : call + entry.duration,
      outcome: entry.unknown ? 'unknown' as const : 'ok' as const, line: index + 1,
    };
  });
}

/** Tries every real-time-respecting order; unknown writes may be placed or left out. */
function bruteForce(history: readonly HistoryOperation[]): boolean {
  const operations =
    history.filter((entry) => !(entry.op === 'get' && entry.outcome === 'unknown'));
  const used = operations.map(() => false);
  const visit = (state: string, placed: number): boolean => {
    if (operations.every((entry, index) => used[index] || entry.outcome === 'unknown')) return true;
    for (let index = 0; index < operations.length; index++) {
      if (used[index]) continue;
      const candidate = operations[index]!;
      const blocked = operations.some((other, at) => !used[at] && at !== index
        && other.return !== undefined && other.return < candidate.call);
      if (blocked) continue;
      let after = state;
      if (candidate.op === 'put') after = candidate.value!;
      else if (candidate.op === 'append') after = state + candidate.value!;
      else if (candidate.outcome === 'ok' && candidate.output !== state) continue;
      used[index] = true;
      const found = visit(after, placed + 1);
      used[index] = false;
      if (found) return true;
    }
    return false;
  };
  return visit('', 0);
}

test('the search agrees with brute force on small histories (both verdicts occur)', () => {
  const verdicts = { linearizable: 0, 'not-linearizable': 0 };
  fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 7 }), (steps) => {
    const history = toHistory(steps);
    const expected = bruteForce(history) ? 'linearizable' : 'not-linearizable';
    const result = lincheckHistory(history, { timeLimitSeconds: 60 });
    assert.is(result.verdict, expected);
    verdicts[expected]++;
  }), { numRuns: 2500 });
  assert.ok(verdicts.linearizable > 200 && verdicts['not-linearizable'] > 200,
    JSON.stringify(verdicts));
});

test.run();
