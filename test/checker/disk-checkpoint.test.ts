// Checkpoint and resume on disk (issue 22, point 4): `check --disk DIR --checkpoint DIR`
// killed with SIGKILL mid-level, after a checkpoint, then resumed with `--resume DIR`, ends
// with the counts, verdict and trace of an uninterrupted run in memory; and a crash at any
// one of the search's file operations leaves a checkpoint that resumes to the same result.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import type { CheckpointOptions } from '../../checker/checkpoint.js';
import type { SearchResult } from '../../checker/search.js';
import type { Directory } from '../../checker/storage.js';
import { openDirectory } from '../../cli/file-directory.js';
import { createDieHardModel } from '../../models/calibration/diehard.js';
import { createTwoPhaseModel } from '../../models/calibration/twophase.js';
import { killedAfterCheckpoint, summaryOf } from '../helpers/checkpoint-kill.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

const scratch = scratchDirectory('shardkv-disk-checkpoint-');

const models = [
  { name: 'twophase rms=6 (no violation)', argv: ['twophase', '--rms', '6', '--no-liveness'] },
  { name: 'migration dedup-not-migrated (a 9-step trace)',
    argv: ['migration', '--bug', 'dedup-not-migrated', '--no-liveness'] },
];
// Killed on 2 workers, resumed on 2 and on 1: the files are the main thread's either way.
const cases = models.flatMap(({ name, argv }) => [
  { name, argv, killedOn: ['--workers', '1'], resumedOn: ['--workers', '1'] },
  { name, argv, killedOn: ['--workers', '2'], resumedOn: ['--workers', '2'] },
  { name, argv, killedOn: ['--workers', '2'], resumedOn: ['--workers', '1'] },
]);

for (const { name, argv, killedOn, resumedOn } of cases) {
  const how = `killed on ${killedOn[1]} worker(s), resumed on ${resumedOn[1]}`;
  test(`${name}: on disk, kill -9 mid-level (${how}): the in-memory run's result`, async () => {
    const tag = `${argv[0]!}-${killedOn[1]}-${resumedOn[1]}`;
    const out = (label: string) => ['--out', join(scratch, `${tag}-${label}.trace.json`)];
    const common = [...argv, '--json', '--quiet'];
    const whole = await runCli('check', ...common, ...out('whole'));
    const directory = join(scratch, tag);
    const disk = ['--disk', directory, '--memory', '64k'];
    const killed = await killedAfterCheckpoint(directory, [...common, ...disk, ...killedOn],
      'disk-checkpoint.json');
    assert.ok(killed, 'killed before it ended');
    const again = await runCli('check', ...common, ...disk, ...resumedOn, '--resume', directory,
      ...out('resumed'));
    assert.equal(summaryOf(again), summaryOf(whole));
    assert.equal(readdirSync(directory), [], 'a finished search removes its checkpoint');
  });
}

// Levels of 65,536 states or more start the workers (disk-parallel.ts): twophase 8 has them
// from level 9 on, so this run is killed while its workers expand level 14.
test('twophase rms=8 on disk on 2 workers, kill -9 amid the workers\' level: resumed, the same',
  async () => {
    const argv = ['twophase', '--rms', '8', '--no-liveness', '--json', '--quiet'];
    const whole = await runCli('check', ...argv);
    const directory = join(scratch, 'twophase-8');
    const disk = ['--disk', directory, '--memory', '4m', '--workers', '2'];
    const killed = await killedAfterCheckpoint(directory, [...argv, ...disk],
      'disk-parents-14.bin');
    assert.ok(killed, 'killed before it ended');
    const again = await runCli('check', ...argv, ...disk, '--resume', directory);
    assert.equal(summaryOf(again), summaryOf(whole));
    assert.equal(summaryOf(whole).distinctStates, 1745408);
    assert.equal(readdirSync(directory), [], 'a finished search removes its checkpoint');
  });

test('a checkpoint on disk resumes only with --disk, one in memory only without', async () => {
  const onDisk = join(scratch, 'on-disk');
  const inMemory = join(scratch, 'in-memory');
  const argv = ['twophase', '--rms', '6', '--no-liveness', '--quiet'];
  // A finished search on disk removes its checkpoint: this one is killed first.
  await killedAfterCheckpoint(onDisk, [...argv, '--disk', onDisk, '--memory', '64k'],
    'disk-checkpoint.json');
  await runCli('check', ...argv, '--checkpoint', inMemory, '--every', '0');
  const refusals = [
    [await runCli('check', ...argv, '--resume', onDisk), /resume it with --disk/],
    [await runCli('check', ...argv, '--disk', inMemory, '--resume', inMemory),
      /resume it without --disk/],
    [await runCli('check', ...argv, '--disk', onDisk, '--checkpoint', inMemory),
      /name DIR/],
  ] as const;
  for (const [run, reason] of refusals) {
    assert.is(run.code, 2, run.stderr);
    assert.match(run.stderr, reason);
    assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
  }
});

/** Thrown where the process would have been killed. */
class Crash extends Error {}

/**
 * The directory as a kill -9 leaves it: the first `survive` changes (a buffer written, a
 * rename, a removal, a replace, a sync) happen, the next throws Crash, and none after it
 * happens (the search's clean-up included). `count` is how many were asked for.
 */
function dyingDirectory(inner: Directory, survive: number) {
  let changes = 0;
  const change = (apply: () => void) => {
    changes++;
    if (changes <= survive) apply();
    else if (changes === survive + 1) throw new Crash(`killed at change ${changes}`);
  };
  const directory: Directory = {
    ...inner,
    replace: (name, parts) => change(() => inner.replace(name, parts)),
    createWriter(name) {
      let writer: ReturnType<Directory['createWriter']> | undefined;
      change(() => (writer = inner.createWriter(name)));
      return {
        write: (bytes) => change(() => writer!.write(bytes)),
        close: () => writer?.close(),
      };
    },
    rename: (from, to) => change(() => inner.rename(from, to)),
    remove: (name) => change(() => inner.remove(name)),
    sync: (names) => change(() => inner.sync(names)),
  };
  return { directory, count: () => changes };
}

const verdict = ({ seconds: _seconds, ...rest }: SearchResult) => rest;

const crashModels = [
  { name: 'twophase rms=3', create: () => createTwoPhaseModel(3) },
  { name: 'diehard (a violation, 6 steps)', create: createDieHardModel },
];

for (const { name, create } of crashModels) {
  test(`${name}: a crash at each file change, then --resume: the uninterrupted result`, () => {
    const memory = verdict(breadthFirstSearch(create()));
    const path = join(scratch, `crash-${name.replace(/\W+/g, '-')}`);
    const options = (directory: Directory, resume: boolean) => {
      const checkpoint: CheckpointOptions = { directory, everySeconds: 0, resume,
        identity: name };
      return { disk: { directory, memoryBytes: 64 * 1024 }, checkpoint };
    };
    const counting = dyingDirectory(openDirectory(path), Infinity);
    assert.equal(verdict(breadthFirstSearch(create(), options(counting.directory, false))),
      memory);
    const changes = counting.count();
    assert.ok(changes > 50, `enough moments to crash at (${changes})`);
    let resumedFromCheckpoint = 0;
    for (let survive = 0; survive < changes; survive++) {
      const dying = dyingDirectory(openDirectory(path), survive);
      try {
        breadthFirstSearch(create(), options(dying.directory, false));
        assert.unreachable(`crashed at change ${survive + 1}`);
      } catch (error) {
        if (!(error instanceof Crash)) throw error;
      }
      if (readdirSync(path).includes('disk-checkpoint.json')) resumedFromCheckpoint++;
      const resumed = breadthFirstSearch(create(), options(openDirectory(path), true));
      assert.equal(verdict(resumed), memory, `crashed at change ${survive + 1}`);
      assert.equal(readdirSync(path), [], `no file left (crashed at change ${survive + 1})`);
    }
    assert.ok(resumedFromCheckpoint > changes / 2, 'most crashes left a checkpoint');
  });
}

test.run();
