// Random simulation that finds bugs (issue 11, point 8): walks choose among the successors
// inside the bounds and check, without entering, those outside them; a run reports the
// distinct states it reached. Figures pinned from the code itself (seeded, deterministic).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Model } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { violatedInvariant } from '../../checker/search.js';
import { simulate } from '../../checker/simulate.js';
import { plainCodec } from '../../checker/plain-codec.js';
import { executePath } from '../../checker/trace.js';
import { raftDefinition } from '../../models/raft/index.js';

test('default simulation (1000 walks of 100 steps, seed 1) finds forget-vote-on-restart', () => {
  const bug = 'forget-vote-on-restart';
  const model = raftDefinition.create(resolveParams(raftDefinition, bug, {}), bug);
  const result = simulate(model, { seed: 1 });
  assert.is(result.result, 'violation');
  assert.is(result.invariant, 'ElectionSafety');
  // Pinned from the code itself (this seed's walks): 13 steps, 1562 distinct states (1587
  // before the Sync action joined the raft model, issue 20).
  assert.is(result.path?.actionIndexes.length, 13);
  assert.is(result.distinctStates, 1562);
  assert.is(result.exhaustive, false);
  const { states } = executePath(model, result.path!);
  assert.is(violatedInvariant(model, states.at(-1)), 'ElectionSafety');
  const again = simulate(model, { seed: 1 });
  assert.equal({ ...again, seconds: 0 }, { ...result, seconds: 0 }, 'the same seed, the same run');
});

test('a violating successor outside the bounds is reported, never walked into', () => {
  const model: Model<number, number> = {
    name: 'steps',
    initialStates: () => [0],
    actions: () => [1, 2],
    next: (state, step) => state + step,
    label: (step) => `Step(${step})`,
    invariants: [{ name: 'Not7', holds: (state) => state !== 7 }],
    withinBounds: (state) => state <= 5,
    codec: plainCodec<number>(),
  };
  const result = simulate(model, { seed: 5, walks: 200 });
  assert.is(result.invariant, 'Not7');
  const { states } = executePath(model, result.path!);
  assert.is(states.at(-1), 7);
  assert.ok(states.slice(0, -1).every((state) => (state as number) <= 5));
  // Pinned from the code: the walks reached 4 of the 6 states inside before the violation.
  assert.is(result.distinctStates, 4);
});

test.run();
