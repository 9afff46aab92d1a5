// Issue 26 item 5 / issue 24 item 6: the simulator damages a synced disk in some seeds and
// its DiskDamage check says what the server did; with the WAL's checksums skipped (the
// planted fault of issue 26's "Done when"), the same seed fails that check.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withChecksumsSkipped } from '../../impl/wal/planted-faults.js';
import { simulationOptions } from '../../verify/simulate/options.js';
import { summaryLine } from '../../verify/simulate/report.js';
import { runSimulation } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';

// Seed 5 flips a byte inside a command in g101-2's WAL while it is down: the first of seeds
// 1..60 at these options whose flip a WAL without checksums loads (seed 3 damages a disk too,
// but in a byte that breaks the record's structure, which even such a WAL sees). The search
// is rerun when the runs move (last: after the swarm draws).
const options = simulationOptions(5, { steps: 3_000, faults: 'crash', keepEventLines: true });
const server = 'g101-2';

test('a flipped synced byte: the server refuses it and stays down, the run passes', async () => {
  const result = await runSimulation(options, shellRuntime);
  assert.is(result.failure, null, result.failure?.detail);
  assert.equal(result.diskDamage.map(({ server, kind, result: what }) => [server, kind, what]),
    [[server, 'flipped byte', 'detected and stopped']]);
  assert.match(result.diskDamage[0]!.what, /^\/data\/g101-2\/wal-\d{16}\.log at offset \d+$/);
  assert.match(summaryLine(result), `disk damage: ${server} flipped byte: detected and stopped;`);
  const stopped = result.lines!.filter((line) => line.includes(`${server} stopped: disk damage`));
  assert.is(stopped.length, 1);
});

test('planted fault: a WAL that skips its checksums fails DiskDamage on the same seed',
  async () => {
    const result = await withChecksumsSkipped(() => runSimulation(options, shellRuntime));
    assert.is(result.failure?.invariant, 'DiskDamage');
    assert.match(result.failure!.detail, `${server} loaded its storage over a flipped byte`);
  });

// Seed 3 with 4 KiB values undoes g102-1's durable snapshot rename after its log was
// compacted past the old snapshot: the restart used to crash on an assertion; the WAL refuses
// the gap between the old snapshot and the log as damage and the server stays down. (Before
// the simulator's servers ran flow control the run lost the rename under a saved commit,
// "saved commit 17 beyond the log"; seeds 1..200 no longer show that one, which
// test/impl/disk-damage.test.ts and wal-crash.test.ts cover.)
test('seed 3, 4 KiB values: a lost snapshot rename is refused, the server stays down',
  async () => {
    const lost = simulationOptions(3, { valueBytes: 4096, keepEventLines: true });
    const result = await runSimulation(lost, shellRuntime);
    assert.is(result.failure, null, result.failure?.detail);
    assert.equal(result.diskDamage.map(({ server, kind, result: what }) => [server, kind, what]),
      [['g102-1', 'lost rename', 'detected and stopped']]);
    const stopped = result.lines!.filter((line) => line.includes('g102-1 stopped: disk damage'));
    assert.is(stopped.length, 1);
    assert.match(stopped[0]!, /the log starts at index \d+, the snapshot ends at \d+/);
  });

test('no disk damage without crashes: --faults net and none never damage a disk', async () => {
  for (const faults of ['net', 'none'] as const) {
    const result = await runSimulation(simulationOptions(14, { steps: 300, faults }),
      shellRuntime);
    assert.equal(result.diskDamage, [], faults);
  }
});

test.run();
