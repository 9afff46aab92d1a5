// The installed binary (bin/shardkv.js over the compiled dist/), as users and CI run it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scratchDirectory } from '../helpers/scratch.js';

const binary = join(process.cwd(), 'bin', 'shardkv.js');
const workDirectory = scratchDirectory('shardkv-bin-');
const run = (...argv: string[]) =>
  spawnSync(process.execPath, [binary, ...argv], { encoding: 'utf8', cwd: workDirectory });

test('shardkv --help lists the commands; no command is a usage error', () => {
  const help = run('--help');
  assert.is(help.status, 0);
  assert.match(help.stdout, 'check');
  assert.match(help.stdout, 'replay');
  assert.is(run().status, 2);
});

test('a violation exits 1 with the JSON summary last; its trace replays with exit 1', () => {
  const check = run('check', 'diehard', '--json');
  assert.is(check.status, 1);
  assert.match(check.stderr, 'Checking diehard');
  const summary = JSON.parse(check.stdout.trim().split('\n').at(-1)!);
  assert.is(summary.traceLength, 6);
  assert.is(summary.trace, join('shardkv-out', 'diehard-NotSolved.trace.json'));
  const replay = run('replay', summary.trace);
  assert.is(replay.status, 1);
  assert.match(replay.stdout, 'NotSolved is violated at step 6 of 6');
});

test.run();
