// DESIGN §5: the same seed gives the same run, byte for byte (FoundationDB's and VOPR's
// promise); the event log is what shows it. A short run keeps this test fast.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { simulationOptions } from '../../verify/simulate/options.js';
import { runSimulation } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';

const steps = 4_000;

// Seed 9: since the clerk backs off (issue 27), seed 7's clients finish no operation within
// these steps (five crashes; the timeouts they wait grow), so it would repeat too little.
test('one seed run twice writes the same event log and the same history', async () => {
  const options = simulationOptions(9, { steps, keepEventLines: true });
  const first = await runSimulation(options, shellRuntime);
  const second = await runSimulation(options, shellRuntime);
  assert.is(first.failure, null);
  assert.ok(first.lines!.length > 1_000, `only ${first.lines!.length} event lines`);
  assert.equal(second.lines, first.lines);
  assert.is(second.digest, first.digest);
  assert.is(second.history, first.history);
  assert.equal(second.faults, first.faults);
  // The run did something worth repeating: operations, reconfigurations, faults.
  assert.ok(first.operations.ok > 0 && first.configurations.published >= 1);
  assert.ok(first.faults.crashes + first.faults.partitions + first.faults.unreliablePeriods > 0);
});

test('another seed makes another run; --faults none injects nothing', async () => {
  const base = await runSimulation(simulationOptions(7, { steps }), shellRuntime);
  const other = await runSimulation(simulationOptions(8, { steps }), shellRuntime);
  assert.is.not(other.digest, base.digest);
  const quiet = await runSimulation(simulationOptions(7, { steps, faults: 'none' }), shellRuntime);
  assert.is(quiet.failure, null);
  assert.equal(quiet.faults, { crashes: 0, restarts: 0, partitions: 0, unreliablePeriods: 0 });
  assert.is(quiet.network.dropped, 0);
  assert.is(quiet.operations.unknown, 0);
});

test('--faults crash only crashes and restarts; --faults net only cuts and degrades the network',
  async () => {
    const crash = await runSimulation(simulationOptions(5, { steps, faults: 'crash' }),
      shellRuntime);
    assert.is(crash.failure, null);
    assert.ok(crash.faults.crashes > 0, 'some crash');
    assert.is(crash.faults.restarts, crash.faults.crashes, 'every crashed server restarted');
    assert.is(crash.faults.partitions + crash.faults.unreliablePeriods, 0);
    const net = await runSimulation(simulationOptions(5, { steps, faults: 'net' }), shellRuntime);
    assert.is(net.failure, null);
    assert.ok(net.faults.partitions + net.faults.unreliablePeriods > 0, 'some network fault');
    assert.is(net.faults.crashes, 0);
  });

test.run();
