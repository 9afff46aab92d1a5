// A bug planted in the client step is found by the `migration` model, whose clients run that
// step: mutants/mutations.ts's retry-takes-new-seq (a retry after ErrWrongGroup or silence is
// numbered anew) applied to a copy of the tracked files, as `npm run mutants` does, breaks
// ExactlyOnce in two steps (a lost reply, then the retry under the next seq applies the append
// again). The unmutated model at the same bounds holds (test/migration/model.test.ts).
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

test('retry-takes-new-seq planted in spec/client: check migration finds ExactlyOnce', () => {
  const mutation = mutations.find((candidate) => candidate.name === 'retry-takes-new-seq');
  assert.ok(mutation !== undefined, 'the mutation is listed');
  const copy = scratchDirectory('shardkv-planted-client-');
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
  assert.is(summary['invariant'], 'ExactlyOnce');
  assert.is(summary['depth'], 2);
});

test.run();
