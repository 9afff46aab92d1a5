// Checkpoint and resume (issue 22, point 4): a check killed with SIGKILL after a checkpoint,
// then resumed from it, ends with the counts, verdict and trace of an uninterrupted run, on 1
// and 2 workers (a checkpoint of either worker count resumes on either).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { killedAfterCheckpoint, summaryOf } from '../helpers/checkpoint-kill.js';
import { runCli } from '../helpers/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'shardkv-checkpoint-'));

const both = [['1', '1'], ['2', '2'], ['1', '2'], ['2', '1']] as const;
const cases = [
  { name: 'twophase rms=6 (no violation)', argv: ['twophase', '--rms', '6', '--no-liveness'],
    workers: both },
  { name: 'migration dedup-not-migrated (a 9-step trace)',
    argv: ['migration', '--bug', 'dedup-not-migrated', '--no-liveness'],
    workers: [['1', '1'], ['2', '2']] as const },
];

for (const { name, argv, workers } of cases) {
  for (const [written, resumed] of workers) {
    test(`${name}: kill -9 on ${written} worker(s), resume on ${resumed}`, async () => {
      const tag = `${argv[0]}-${written}-${resumed}`;
      const out = (label: string) => ['--out', join(scratch, `${tag}-${label}.trace.json`)];
      const common = [...argv, '--json', '--quiet'];
      const whole = await runCli('check', ...common, ...out('whole'));
      const directory = join(scratch, tag);
      await killedAfterCheckpoint(directory, [...common, '--workers', written]);
      const again = await runCli(
        'check', ...common, '--workers', resumed, '--resume', directory, ...out('resumed'));
      assert.equal(summaryOf(again), summaryOf(whole));
    });
  }
}

test('a checkpoint of other bounds is refused (exit 2, one line)', async () => {
  const directory = join(scratch, 'other');
  await runCli('check', 'twophase', '--rms', '3', '--no-liveness', '--quiet',
    '--checkpoint', directory, '--every', '0');
  const run = await runCli('check', 'twophase', '--rms', '4', '--quiet', '--resume', directory);
  assert.is(run.code, 2);
  assert.match(run.stderr, 'is a checkpoint of another check');
});

test.after(() => rmSync(scratch, { recursive: true, force: true }));
test.run();
