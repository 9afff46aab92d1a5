// Issue 14 items 1-3: traced simulator runs conform to the spec (`shardkv conform`), the
// traces are deterministic by seed, and a server running a catalog bug diverges from the
// spec at the step where the bug mattered (conform replays every node with no bug switch).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';
import { tracedRun } from './traced-run.js';

interface ConformJson {
  ok: boolean;
  result: string;
  nodes: number;
  records: number;
  operations: number | null;
  divergence?: {
    check: string; node: string; step: number; actor: string; what: string;
    expected: string; recorded: string; before: string[];
  };
}

test('traced runs with crashes, partitions and message faults conform (seeds 3-5)', async () => {
  let restarts = 0;
  for (const seed of [3, 4, 5]) {
    const { directory, result } = await tracedRun(seed, { steps: 3_000, faults: 'all' });
    assert.is(result.failure, null, `seed ${seed} failed in the simulator`);
    const run = await runCli('conform', directory, '--json');
    assert.is(run.code, 0, `seed ${seed}: ${run.stderr}`);
    const summary = run.json<ConformJson>();
    assert.is(summary.result, 'conforming');
    // 3 controllers and 3 groups of 3 (the simulator's default layout).
    assert.is(summary.nodes, 12);
    assert.ok(summary.records > 1_000, `seed ${seed}: only ${summary.records} records`);
    assert.ok((summary.operations ?? 0) > 0, 'the clients\' history was checked');
    restarts += result.faults.crashes;
  }
  assert.ok(restarts > 0, 'at least one of the seeds crashed and restarted a server');
});

test('the same seed writes the same traces', async () => {
  const first = await tracedRun(6, { steps: 1_500 });
  const second = await tracedRun(6, { steps: 1_500 });
  assert.equal([...second.result.traces!], [...first.result.traces!]);
  assert.is(second.result.history, first.result.history);
});

test('a server running vote-ignores-log diverges from the spec at a vote (seed 1)', async () => {
  const clean = await tracedRun(1);
  assert.is((await runCli('conform', clean.directory)).code, 0, 'seed 1 conforms without it');
  const { directory, result } = await tracedRun(1, { bug: 'vote-ignores-log' });
  assert.ok(result.failure !== null, 'the simulator finds the bug too');
  const run = await runCli('conform', directory, '--json');
  assert.is(run.code, 1);
  const divergence = run.json<ConformJson>().divergence!;
  assert.is(divergence.check, 'replay');
  assert.is(divergence.actor, 'raft');
  assert.is(divergence.what, 'the effects differ from the spec\'s');
  // The spec refuses the vote (the candidate's log is behind); the buggy server granted it.
  assert.match(divergence.expected, /"voteGranted":false/);
  assert.match(divergence.recorded, /"voteGranted":true/);
  assert.is(divergence.before.length, 3);
});

test('a group running dedup-not-migrated diverges at the image it froze (seed 2)', async () => {
  const { directory } = await tracedRun(2, { bug: 'dedup-not-migrated' });
  const run = await runCli('conform', directory, '--json');
  assert.is(run.code, 1);
  const divergence = run.json<ConformJson>().divergence!;
  assert.is(divergence.check, 'replay');
  assert.is(divergence.actor, 'machine');
  assert.is(divergence.what, 'the result differs from the spec\'s');
  // The spec's image carries the dedup table; the buggy one an empty one.
  assert.match(divergence.expected, /"type":"image"/);
  assert.match(divergence.recorded, /"dedup":\{"\$map":\[\]\}/);
  assert.not.match(divergence.expected, /"dedup":\{"\$map":\[\]\}/);
});

test.run();
