// Issue 24 item 3: swarm testing (VOPR's per-seed options). Each seed draws whether its
// servers run PreVote and CheckQuorum and whether the administrator expires sessions; the
// draws come from a stream split after every other one, so they are the seed's alone, and
// the run names them in its first event line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultTuning } from '../../impl/node/tuning.js';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { simulationOptions } from '../../verify/simulate/options.js';
import { runSimulation } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';
import { describeSwarm, drawSwarm, type SwarmDraws } from '../../verify/simulate/swarm.js';

/** The seed's swarm stream: the seventh split of its root, as run.ts takes it. */
function drawsOf(seed: number): SwarmDraws {
  const root = new SeededRandom(seed);
  for (let stream = 0; stream < 6; stream++) root.split();
  return drawSwarm(root.split());
}

test('the first 200 seeds draw every combination; about a quarter expire sessions', () => {
  const draws = Array.from({ length: 200 }, (_, index) => drawsOf(index + 1));
  const combinations = new Set(draws.map((draw) => describeSwarm(draw)));
  assert.is(combinations.size, 16);
  const expiring = draws.filter((draw) => draw.sessionExpiry).length;
  assert.ok(expiring > 25 && expiring < 75, `${expiring} of 200 seeds expire sessions`);
  const churning = draws.filter((draw) => draw.leaderChurn).length;
  assert.ok(churning > 25 && churning < 75, `${churning} of 200 seeds churn leaders`);
  assert.equal(drawsOf(2), drawsOf(2));
});

test('seed 2 expires sessions through the groups\' logs, and the correct code passes', async () => {
  assert.equal(drawsOf(2),
    { preVote: true, checkQuorum: true, sessionExpiry: true, leaderChurn: false });
  const result = await runSimulation(simulationOptions(2, { keepEventLines: true }),
    shellRuntime);
  assert.equal(result.swarm, drawsOf(2));
  assert.is(result.failure, null);
  const lines = result.lines!;
  assert.match(lines[0]!, /prevote on, checkquorum on, session expiry on$/);
  assert.ok(lines.some((line) => / admin ok expire-sessions below 2 at 100$/.test(line)),
    'the administrator expired sessions 0 and 1 at group 100');
  assert.ok(lines.some((line) => /session-expired/.test(line)), 'an expired client was refused');
});

test('seed 1 churns leaders without PreVote and CheckQuorum; the correct code passes', async () => {
  assert.equal(drawsOf(1),
    { preVote: false, checkQuorum: false, sessionExpiry: false, leaderChurn: true });
  const result = await runSimulation(simulationOptions(1, { keepEventLines: true }),
    shellRuntime);
  assert.is(result.failure, null);
  const lines = result.lines!;
  assert.match(lines[0]!, /prevote off, checkquorum off, session expiry off, leader churn$/);
  assert.ok(lines.some((line) => / nemesis crash \S+, a recent voter$/.test(line)));
  assert.ok(lines.some((line) => / nemesis isolate \S+, a recent leader$/.test(line)));
});

// Issue 21 item 3: whatever a seed draws, its servers run the runtime's flow control, as
// every server's trace setup records it (the options conform replays the spec with).
test('every seed\'s servers run the runtime\'s flow control (seeds 1 and 2)', async () => {
  const { maxInflightAppends, maxInflightBytes, maxBytesPerAppend } = defaultTuning;
  for (const seed of [1, 2]) {
    const result = await runSimulation(simulationOptions(seed, { steps: 500, trace: true }),
      shellRuntime);
    assert.is(result.traces!.size, 12);
    for (const [server, lines] of result.traces!) {
      const setups = lines.map((line) => JSON.parse(line) as {
        setup?: { raftOptions: Record<string, unknown> };
      }).flatMap((record) => (record.setup === undefined ? [] : [record.setup.raftOptions]));
      assert.ok(setups.length > 0, `seed ${seed}: ${server} recorded no setup`);
      for (const options of setups) {
        const window = { maxInflightAppends: options.maxInflightAppends,
          maxInflightBytes: options.maxInflightBytes,
          maxBytesPerAppend: options.maxBytesPerAppend };
        assert.equal(window, { maxInflightAppends, maxInflightBytes, maxBytesPerAppend },
          `seed ${seed}: ${server}`);
      }
    }
  }
});

test.run();
