// Calibration against TLC: DieHard and TwoPhase state counts (issue 2).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { depthFirstSearch } from '../../checker/dfs.js';
import { createDieHardModel } from '../../spec/calibration/diehard.js';
import { createTwoPhaseModel } from '../../spec/calibration/twophase.js';

test('DieHard: 16 distinct states, shortest violation of NotSolved has 6 steps', () => {
  const full = breadthFirstSearch(createDieHardModel(), { continueAfterViolation: true });
  assert.is(full.distinctStates, 16);
  assert.is(full.invariant, 'NotSolved');
  assert.is(full.path?.actionIndexes.length, 6);
});

for (const [rms, distinct] of [[3, 288], [4, 1568], [5, 8832]] as const) {
  test(`TwoPhase with ${rms} RMs: ${distinct} distinct states (bfs and dfs)`, () => {
    const model = createTwoPhaseModel(rms);
    assert.is(breadthFirstSearch(model).distinctStates, distinct);
    assert.is(depthFirstSearch(model).distinctStates, distinct);
  });
}

test.run();
