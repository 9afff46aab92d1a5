// @tier full: the 300-seed sweep of the simulator.
// Issue 12: `shardkv simulate --seeds 1..300` passes on the correct code, in CI. The built
// binary runs it (the test script builds dist/ first), in two processes of 150 seeds each so
// that both cores work; without the coverage collector, which would only slow it down.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const binary = join(process.cwd(), 'bin', 'shardkv.js');

interface Summary {
  readonly ok: boolean;
  readonly seeds: readonly number[];
  readonly seedsRun: number;
  readonly rerun?: string;
  readonly error?: string;
}

type Finished = { code: number | null; summary: Summary };

function simulate(first: number, last: number): Promise<Finished> {
  const environment = { ...process.env };
  delete environment['NODE_V8_COVERAGE'];
  const child = spawn(process.execPath, [binary, 'simulate', '--seeds', `${first}..${last}`,
    '--json'], { stdio: ['ignore', 'pipe', 'ignore'], env: environment });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const last = output.trimEnd().split('\n').at(-1) ?? 'null';
      resolve({ code, summary: JSON.parse(last) as Summary });
    });
  });
}

test('seeds 1..300 pass on the correct code (AtMostOneServer, NoLostWrite, lincheck...)',
  async () => {
    const halves = await Promise.all([simulate(1, 150), simulate(151, 300)]);
    for (const { code, summary } of halves) {
      assert.is(summary.ok, true, `${summary.error ?? ''}: ${summary.rerun ?? ''}`);
      assert.is(code, 0);
      assert.is(summary.seedsRun, 150);
    }
    assert.equal(halves.map(({ summary }) => summary.seeds), [[1, 150], [151, 300]]);
  });

test.run();
