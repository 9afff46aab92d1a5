// Issue 12 item 5: with a catalog bug switched on inside the running servers, the simulator
// fails, and the seed that found it reruns to the same failure (traces/sim/NAME.txt). The
// seeds are pinned from the code itself: each is the first failing seed of `shardkv simulate
// --seeds 1..1000 --bug NAME` (docs/benchmarks.md, "The simulator"); a change to the node
// shell or the simulator may move them, and then the search is rerun. Each seed passes with the
// bug off, so the bug is the cause.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { simulationOptions } from '../../verify/simulate/options.js';
import { runSimulation } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';

import { simulatorBugSeeds as cases } from './bug-seeds.js';

for (const { bug, seed, invariant, detail } of cases) {
  test(`${bug}: seed ${seed} violates ${invariant}; without the bug it passes`, async () => {
    const failing = await runSimulation(simulationOptions(seed, { bug }), shellRuntime);
    assert.ok(failing.failure !== null, `seed ${seed} passed with ${bug}`);
    assert.is(failing.failure.invariant, invariant, failing.failure.detail);
    assert.match(failing.failure.detail, detail);
    assert.ok(failing.failure.lastEvents.length > 0);
    const correct = await runSimulation(simulationOptions(seed), shellRuntime);
    assert.is(correct.failure, null);
  });
}

test.run();
