// `shardkv mbt MODEL` (CONTRACT-style): exit 0 with a summary line when the runtime follows
// every schedule, what is not driven and why, one JSON object with --json, and usage errors
// as one line with exit 2.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

test('a clean run: the summary line and exit 0', async () => {
  const run = await runCli('mbt', 'raft', '--walks', '3', '--depth', '10', '--quiet');
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /^OK: 3 schedules, \d+ steps through the runtime/);
});

test('migration says what it does not drive, and why', async () => {
  const run = await runCli('mbt', 'migration', '--paths', '5', '--quiet', '--json');
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, 'Not driven: ExpireSessions: no runtime component sends');
  const summary = run.json<{ ok: boolean; schedules: number; refusals: string[] }>();
  assert.is(summary.ok, true);
  assert.is(summary.schedules, 5);
  assert.is(summary.refusals.length, 1);
});

test('--bug switches the catalog bug on in the runtime: mbt sees it, the trace names it', async () => {
  const out = join(scratchDirectory('shardkv-mbt-bug-'), 'bug.trace.json');
  const run = await runCli('mbt', 'raft', '--bug', 'follower-skips-apply', '--walks', '20',
    '--depth', '20', '--quiet', '--json', '--out', out);
  assert.is(run.code, 1, run.stderr);
  assert.match(run.stdout, 'AppliedUpToCommit is violated in the runtime\'s state');
  assert.is(run.json<{ bug: string }>().bug, 'follower-skips-apply');
  assert.is(JSON.parse(readFileSync(out, 'utf8')).bug, 'follower-skips-apply');
  const unknown = await runCli('mbt', 'raft', '--bug', 'no-such-bug');
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, "model raft has no bug 'no-such-bug'");
});

test('guided walks reach a bug that as many plain walks miss; the correct code passes them',
  async () => {
    const out = join(scratchDirectory('shardkv-mbt-guided-'), 'guided.trace.json');
    const walks = ['raft', '--bug', 'truncate-on-every-append', '--walks', '60', '--depth', '40',
      '--quiet', '--out', out];
    const plain = await runCli('mbt', ...walks);
    assert.is(plain.code, 0, plain.stdout + plain.stderr);
    const guided = await runCli('mbt', ...walks, '--guided');
    assert.is(guided.code, 1, guided.stdout + guided.stderr);
    assert.match(guided.stdout, 'CommittedDurable is violated in the runtime\'s state');
    const clean = await runCli('mbt', 'raft', '--walks', '20', '--depth', '40', '--guided',
      '--quiet');
    assert.is(clean.code, 0, clean.stdout + clean.stderr);
  });

test('a late duplicate still arrives after its sender crashed', async () => {
  // The runtime's held network drops a crashed process's frames; the model's copy stays in
  // flight. These walks crash the controller with a duplicate kept (was an internal error).
  const out = join(scratchDirectory('shardkv-mbt-late-'), 'late.trace.json');
  const run = await runCli('mbt', 'migration', '--max-duplicates', '1', '--walks', '30',
    '--quiet', '--out', out);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^OK: 30 schedules/m);
});

test('usage errors exit 2 with one line', async () => {
  const cases: [string[], string][] = [
    [['diehard'], "mbt drives raft, migration, controller, not 'diehard'"],
    [[], 'mbt needs a MODEL'],
    [['raft', '--paths', '3', '--walks', '2'], '--paths replaces --walks'],
    [['raft', '--paths', '3', '--guided'], '--paths replaces --walks'],
    [['raft', '--walks', 'x'], '--walks expects an integer'],
    [['raft', '--servers', '9'], '--servers'],
    [['raft', '--preset', 'liveness'], '--preset liveness is a liveness check'],
    [['raft', '--bug', 'prevote-response-term'],
      'prevote-response-term is checked with --preset liveness-9.6, a liveness check'],
  ];
  for (const [argv, reason] of cases) {
    const run = await runCli('mbt', ...argv);
    assert.is(run.code, 2, argv.join(' '));
    assert.match(run.stderr, reason);
    assert.is(run.stderr.split('\n').length, 1, run.stderr);
  }
});

test('--help names the schedules and the exit codes', async () => {
  const run = await runCli('mbt', 'raft', '--help');
  assert.is(run.code, 0);
  assert.match(run.stdout, '--paths N');
  assert.match(run.stdout, 'Exit: 0 the runtime followed every schedule, 1 it diverged');
});

test.run();
