// @tier full: every strategy and worker count against TLC's counts.
// Calibration against TLC: DieHard and TwoPhase state counts for every strategy and worker
// count (issue 2). TLC, Stateright and SPIN agree on these figures.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { depthFirstSearch } from '../../checker/dfs.js';
import { parallelBreadthFirstSearch } from '../../checker/parallel-bfs.js';
import { executePath } from '../../checker/trace.js';
import { createDieHardModel } from '../../models/calibration/diehard.js';
import { createTwoPhaseModel } from '../../models/calibration/twophase.js';
import { registryModule } from '../../models/registry.js';

// Independent: TLC finds 16 distinct states in DieHard.tla, and 6 steps is the puzzle's answer
// (a hand count: fill the big jug, pour, empty the small one, pour, fill the big, pour).
test('DieHard: 16 distinct states; the shortest violation of NotSolved has 6 steps', () => {
  const model = createDieHardModel();
  const full = breadthFirstSearch(model, { continueAfterViolation: true });
  assert.is(full.result, 'violation');
  assert.is(full.distinctStates, 16);
  assert.is(full.invariant, 'NotSolved');
  assert.is(full.path?.actionIndexes.length, 6);
  const { states } = executePath(model, full.path!);
  assert.equal(states.at(-1), { small: 3, big: 4 });
  const first = breadthFirstSearch(model);
  assert.is(first.path?.actionIndexes.length, 6);
  assert.ok(first.distinctStates < 16, 'BFS stops at the first violation');
});

test('DieHard with 2 workers: same shortest length, same count with --continue', async () => {
  const model = { module: registryModule, name: 'diehard' };
  const request = { model, params: {}, bug: undefined, workers: 2 };
  const first = await parallelBreadthFirstSearch(request, {});
  assert.is(first.invariant, 'NotSolved');
  assert.is(first.path?.actionIndexes.length, 6);
  const { states } = executePath(createDieHardModel(), first.path!);
  assert.is((states.at(-1) as { big: number }).big, 4);
  const full = await parallelBreadthFirstSearch(request, { continueAfterViolation: true });
  assert.is(full.distinctStates, 16);
});

const twoPhase = { module: registryModule, name: 'twophase' };

// Independent: TLC's distinct-state counts for TwoPhase.tla (spec/calibration/twophase.ts).
const twoPhaseCounts = [
  [3, 288],
  [4, 1568],
  [5, 8832],
] as const;

for (const [rms, distinct] of twoPhaseCounts) {
  test(`TwoPhase with ${rms} RMs: ${distinct} distinct states with bfs, dfs, 1 and 2 workers`, async () => {
    const model = createTwoPhaseModel(rms);
    const bfs = breadthFirstSearch(model);
    assert.is(bfs.result, 'ok');
    assert.is(bfs.distinctStates, distinct);
    assert.is(depthFirstSearch(model).distinctStates, distinct);
    const parallel = await parallelBreadthFirstSearch(
      { model: twoPhase, params: { rms }, bug: undefined, workers: 2 },
      {},
    );
    assert.is(parallel.result, 'ok');
    assert.is(parallel.distinctStates, distinct);
    assert.is(parallel.statesGenerated, bfs.statesGenerated);
    assert.is(parallel.depth, bfs.depth);
  });
}

// 296448 distinct states is TLC's count; 2744706 generated is from the code itself.
test('TwoPhase with 7 RMs: 296448 distinct states, 2744706 generated (1 and 2 workers)', async () => {
  const bfs = breadthFirstSearch(createTwoPhaseModel(7));
  assert.is(bfs.distinctStates, 296448);
  assert.is(bfs.statesGenerated, 2744706);
  const parallel = await parallelBreadthFirstSearch(
    { model: twoPhase, params: { rms: 7 }, bug: undefined, workers: 2 },
    {},
  );
  assert.is(parallel.distinctStates, 296448);
});

test.run();
