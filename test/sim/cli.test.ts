// `shardkv simulate` (CONTRACT): help, usage errors with exit 2 and one line, the --json
// summary of a passing run, and the rerun command of a failing one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

const scratch = scratchDirectory('shardkv-simulate-');

test('--help describes the command; bad flags and values exit 2 with one line', async () => {
  const help = await runCli('simulate', '--help');
  assert.is(help.code, 0);
  assert.match(help.stdout, 'Usage: shardkv simulate [--seed N | --seeds A..B]');
  const cases: [string[], string][] = [
    [['--seeds', '5..2'], 'A must be at most B'],
    [['--seeds', '1-3'], '--seeds expects A..B'],
    [['--seed', '1', '--seeds', '1..2'], 'not both'],
    [['--faults', 'disk'], '--faults must be one of none, crash, net, all'],
    [['--bug', 'no-such-bug'], "unknown bug 'no-such-bug'"],
    [['--steps', '0'], '--steps must be between 1'],
    [['--seeds', '1..2', '--events', 'x.txt'], 'need a single --seed'],
    [['--frobnicate'], 'unknown flag --frobnicate'],
  ];
  for (const [argv, reason] of cases) {
    const run = await runCli('simulate', ...argv);
    assert.is(run.code, 2, argv.join(' '));
    assert.match(run.stderr, reason);
    assert.is(run.stderr.split('\n').length, 1);
  }
});

test('a passing run prints its summary; --json has one object last', async () => {
  const run = await runCli('simulate', '--seed', '3', '--steps', '2000', '--json');
  assert.is(run.code, 0, run.stderr);
  const summary = run.json<{
    ok: boolean; seeds: number[]; seedsRun: number;
    runs: { seed: number; ok: boolean; events: number; digest: string }[];
  }>();
  assert.is(summary.ok, true);
  assert.equal(summary.seeds, [3, 3]);
  assert.is(summary.seedsRun, 1);
  assert.is(summary.runs[0]!.seed, 3);
  assert.ok(summary.runs[0]!.events > 2_000);
  assert.match(summary.runs[0]!.digest, /^[0-9a-f]{16}$/);
  assert.match(run.stderr, /^seed 3: ok; [\d.]+ s simulated/);
  assert.is(run.stdout.split('\n').length, 1);
});

test('a failing seed exits 1 with the invariant, the last events and the rerun command',
  async () => {
    const run = await runCli('simulate', '--seeds', '1..3', '--bug', 'skip-freeze');
    assert.is(run.code, 1);
    assert.match(run.stdout, /^seed 1: FAILED AtMostOneServer; /);
    assert.match(run.stdout,
      /seed 1 violates AtMostOneServer at [\d.]+ s simulated: shard \d+ is/);
    assert.match(run.stdout, 'last events, frames and timers left out (time ms, node, what):');
    // Times are fractional: the clerks' jittered timeouts (spec/client/attempt-timeout.ts).
    assert.match(run.stdout, /\n {2}\d+\.\d+ admin ok /);
    assert.match(run.stdout, '\nrerun: shardkv simulate --seed 1 --bug skip-freeze\n');
    assert.match(run.stdout, /seed 1 failed after 1 seeds/);
    const json = await runCli('simulate', '--seed', '1', '--bug', 'skip-freeze', '--json');
    assert.is(json.code, 1);
    const summary = json.json<{ ok: boolean; failedSeed: number; error: string; rerun: string }>();
    assert.is(summary.ok, false);
    assert.is(summary.failedSeed, 1);
    assert.match(summary.error, /^AtMostOneServer: shard \d+ is served by gid/);
    assert.is(summary.rerun, 'shardkv simulate --seed 1 --bug skip-freeze');
  });

test('--events writes every event line of the run; --history is a history lincheck passes',
  async () => {
    const events = join(scratch, 'events.txt');
    const history = join(scratch, 'history.jsonl');
    const run = await runCli('simulate', '--seed', '4', '--steps', '2000', '--faults', 'none',
      '--events', events, '--history', history);
    assert.is(run.code, 0, run.stdout);
    const lines = readFileSync(events, 'utf8').trimEnd().split('\n');
    assert.match(lines[0]!,
      /^0 simulator seed 4, faults none, bug none, snapshots (never|over \d+ bytes of log), /);
    assert.match(lines[0]!, /, prevote (on|off), checkquorum (on|off), session expiry (on|off)$/);
    assert.ok(lines.length > 2_000, `${lines.length} lines`);
    assert.ok(lines.every((line) => /^\d+ \S+ \S/.test(line)), 'time, node, what');
    // The run's last event: the simulator's own line, a frame, or a timer that fired.
    assert.match(lines.at(-1)!, / simulator | from | lost from | timer /);
    const check = await runCli('lincheck', history, '--json');
    assert.is(check.code, 0);
    assert.is(check.json<{ result: string }>().result, 'linearizable');
  });

test.run();
