// `shardkv replay FILE --runtime [--without-bug]` (CONTRACT): a line per step and a verdict,
// exit 1 when the violation reproduces or the runtime diverges, 0 on a clean run, one JSON
// object with --json, and usage errors with exit 2 and one line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { keptTrace } from './helpers.js';

const skipFreeze = 'traces/migration/skip-freeze.trace.json';

/** A trace of a model the runtime has no nodes for, written by the checker. */
async function diehardTrace(): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), 'replay-runtime-'));
  const file = join(directory, 'diehard.trace.json');
  await runCli('check', 'diehard', '--out', file, '--quiet');
  return file;
}

test('reproduced: a line per step, the verdict names invariant and step, exit 1', async () => {
  const length = keptTrace('migration', 'skip-freeze').steps.length;
  const run = await runCli('replay', skipFreeze, '--runtime');
  assert.is(run.code, 1, run.stderr);
  const lines = run.stdout.split('\n');
  assert.is(lines.length, length + 1);
  assert.ok(lines.slice(0, length).every((line, index) =>
    line.startsWith(`Step ${index + 1}: `) && line.includes('[runtime agrees')), run.stdout);
  assert.is(lines[length], `Reproduced: AtMostOneServer violated at step ${length} in the ` +
    'runtime (the code with bug skip-freeze)');
});

test('--without-bug runs the same schedule clean on the correct code, exit 0', async () => {
  const run = await runCli('replay', skipFreeze, '--runtime', '--without-bug');
  assert.is(run.code, 0, run.stderr);
  const length = keptTrace('migration', 'skip-freeze').steps.length;
  assert.match(run.stdout.split('\n').at(-1)!,
    `The runtime ran the schedule clean: ${length} steps`);
});

test('--json prints one object; a divergence names its step and field', async () => {
  const run = await runCli('replay', 'traces/migration/skip-config.trace.json', '--runtime',
    '--json');
  assert.is(run.code, 1);
  assert.is(run.stdout.split('\n').length, 1);
  const summary = run.json<{ ok: boolean; result: string; step: number; reason: string;
    bug: string; steps: { agrees: boolean }[]; error: string }>();
  assert.is(summary.ok, false);
  assert.is(summary.result, 'diverged');
  assert.is(summary.bug, 'skip-config');
  assert.is(summary.reason, 'controller.next.num: spec 3, runtime 2');
  assert.is(summary.steps.length, summary.step);
  assert.match(summary.error, `cannot follow step ${summary.step}`);
});

test('usage errors exit 2 with one line', async () => {
  const cases: [string[], string][] = [
    [[skipFreeze, '--without-bug'], '--without-bug needs --runtime'],
    [[skipFreeze, '--runtime', '--mermaid'], 'not both'],
    [[await diehardTrace(), '--runtime'], 'controller traces, not \'diehard\''],
    [['traces/migration/delete-before-receipt.trace.json', '--runtime', '--without-bug'],
      'cannot be run on the correct code'],
  ];
  for (const [argv, reason] of cases) {
    const run = await runCli('replay', ...argv);
    assert.is(run.code, 2, argv.join(' '));
    assert.match(run.stderr, reason);
    assert.is(run.stderr.split('\n').length, 1);
  }
});

test('--help documents --runtime and --without-bug', async () => {
  const run = await runCli('replay', '--help');
  assert.match(run.stdout, '--runtime');
  assert.match(run.stdout, '--without-bug');
});

test.run();
