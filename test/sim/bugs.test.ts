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

const cases: readonly { bug: string; seed: number; invariant: string; detail: RegExp }[] = [
  { bug: 'skip-freeze', seed: 1, invariant: 'AtMostOneServer', detail: /is served by gid/ },
  {
    bug: 'dedup-not-migrated', seed: 7, invariant: 'ExactlyOnce',
    detail: /key "c" holds the write <c5\.3> twice/,
  },
  {
    bug: 'accept-stale-epoch', seed: 126, invariant: 'StaleRejected',
    detail: /went back for shard \d+ from epoch \d+ .* to epoch \d+/,
  },
  {
    bug: 'delete-before-receipt', seed: 7, invariant: 'Liveness',
    detail: /configuration \d+ is recorded but only \d+ is published/,
  },
  {
    bug: 'vote-ignores-log', seed: 1, invariant: 'StateMachineSafety',
    detail: /has committed index \d+ holding an entry of term \d+/,
  },
  // Beyond issue 12's five: the other catalog bugs the simulator finds.
  {
    bug: 'skip-config', seed: 1, invariant: 'ConfigsInOrder',
    detail: /plans configuration 3 while configuration 0 is current/,
  },
  {
    bug: 'unfreeze-on-recovery', seed: 7, invariant: 'AtMostOneServer',
    detail: /is served by gid/,
  },
  {
    bug: 'reinstall-overwrites', seed: 15, invariant: 'NoLostWrite',
    detail: /the acknowledged append of <c5\.2> on key "d" .* is not in its value/,
  },
];

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
