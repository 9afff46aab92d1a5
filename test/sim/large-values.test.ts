// Issue 27: the simulator runs seeds with large values (`shardkv simulate --value-bytes B`,
// verify/simulate/large-values.ts): written values padded to B bytes, the servers' value
// limit two such values, so appends reach the limit and are refused past it, while every
// invariant and the linearizability check hold. A refusal past the limit writes nothing, so it
// leaves the history (as unknown it made lincheck search every place it might have applied).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { simulationOptions } from '../../verify/simulate/options.js';
import { rerunCommand } from '../../verify/simulate/report.js';
import { runSimulation } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';
import { writeValue } from '../../verify/simulate/large-values.js';

// Seed 5: seed 1 draws leader churn (few operations, no value reaches the limit).
test('seed 5 with 4 KiB values passes; appends past the limit are refused', async () => {
  const options = simulationOptions(5, { valueBytes: 4096, keepEventLines: true });
  const result = await runSimulation(options, shellRuntime);
  assert.is(result.failure, null, result.failure?.detail);
  const lines = result.lines!;
  assert.ok(lines.some((line) => line.includes('refused append') &&
    line.includes('value-too-large')), 'an append past the limit was refused');
  assert.ok(lines.some((line) => /ok get \w+ \(8192 characters\)/.test(line)),
    'a key read back at the limit');
  assert.match(rerunCommand(options), /--value-bytes 4096/);
});

// Seed 4 kept 20 refused appends on key "d" as unknown: lincheck ran out of its 60 s and the
// run took 2 GB. Without them the history is small and linearizable.
test('seed 4 with 4 KiB values: refused appends leave the history, lincheck decides', async () => {
  const options = simulationOptions(4, { valueBytes: 4096, keepEventLines: true });
  const result = await runSimulation(options, shellRuntime);
  assert.is(result.failure, null, result.failure?.detail);
  assert.ok(result.lines!.some((line) => line.includes('value-too-large')), 'a refusal');
  assert.is(result.operations.unknown, 0);
});

test('writeValue pads a token to the size asked, never shorter than the token', () => {
  assert.is(writeValue('<c1.2>', 10), '<c1.2>....');
  assert.is(writeValue('<c1.2>', 3), '<c1.2>');
});

test.run();
