// Issue 20: the `migration` model runs the code the cluster runs, so a bug planted in the
// client step (spec/client) or in the driver step (spec/migration/driver-step.ts) is found by
// `check migration`. Each mutation of mutants/mutations.ts is applied to a copy of the tracked
// files, as `npm run mutants` does; the unmutated model at the same bounds holds
// (docs/models.md, "Shard migration").
// - retry-takes-new-seq: a retry after ErrWrongGroup or silence is numbered anew: ExactlyOnce
//   breaks in three steps (a lost reply, then the retry under the next seq applies it again;
//   two until issue 21's small results, when the retry's answer, the value after, differed
//   from the first effect's: an ok now answers both alike, so one more step shows it);
// - beliefs-kept-across-intents: the driver keeps its beliefs when `next` changes, so the next
//   intent inherits the last one's progress: a shard that should stay served is not (six
//   steps).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mutations } from '../../mutants/mutations.js';
import { scratchDirectory } from '../helpers/scratch.js';

const entry = "import('./cli/main.ts').then(async (m) => { process.exitCode = await m.main(" +
  'process.argv.slice(1)); })';

/** The tracked source files (not the kept traces) in `target`, node_modules linked. */
function copySources(target: string): void {
  const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
    .split('\0')
    .filter((file) => file.length > 0 && !/^(traces|corpus)\//.test(file));
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(file, join(target, file));
  }
  symlinkSync(realpathSync('node_modules'), join(target, 'node_modules'), 'dir');
}

const planted = [
  { name: 'retry-takes-new-seq', invariant: 'ExactlyOnce', depth: 3 },
  { name: 'beliefs-kept-across-intents', invariant: 'UnaffectedServed', depth: 6 },
] as const;

for (const { name, invariant, depth } of planted) {
  test(`${name} planted: check migration finds ${invariant}`, () => {
    const mutation = mutations.find((candidate) => candidate.name === name);
    assert.ok(mutation !== undefined, 'the mutation is listed');
    const copy = scratchDirectory('shardkv-planted-');
    copySources(copy);
    const path = join(copy, mutation.file);
    const original = readFileSync(path, 'utf8');
    assert.is(original.split(mutation.find).length, 2, 'the edit matches exactly once');
    writeFileSync(path, original.replace(mutation.find, () => mutation.replace));
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--eval', entry, 'check',
      ...mutation.check, '--no-liveness', '--quiet', '--json'],
    { cwd: copy, encoding: 'utf8', timeout: 120_000 });
    const summary = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    assert.is(summary['result'], 'violation', child.stderr);
    assert.is(summary['invariant'], invariant);
    assert.is(summary['depth'], depth);
  });
}

test.run();
