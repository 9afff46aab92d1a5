// The disk mode (issue 22, point 3): `check --disk DIR --memory SIZE` keeps the visited set,
// the frontier and the parent links in files; under a tiny cap, so that every level merges
// several batches into the sorted file, its counts, verdict and trace are the in-memory
// search's, the trace read back from its own parent links (no search in memory).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { diskBreadthFirstSearch } from '../../checker/disk-bfs.js';
import { diskBudget, minimumMemoryBytes } from '../../checker/disk-fingerprint-set.js';
import { recordWords, sortFingerprintRecords } from '../../checker/fingerprint-sort.js';
import type { AnyModel } from '../../checker/model.js';
import type { SearchResult } from '../../checker/search.js';
import type { Directory } from '../../checker/storage.js';
import { openDirectory } from '../../cli/file-directory.js';
import { parseMemory } from '../../cli/check-disk.js';
import { createDieHardModel } from '../../models/calibration/diehard.js';
import { createTwoPhaseModel } from '../../models/calibration/twophase.js';
import { findModel } from '../../models/registry.js';
import { resolveParams } from '../../checker/params.js';
import { WordFileReader, WordFileWriter } from '../../checker/word-file.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

const scratch = scratchDirectory('shardkv-disk-');

/** A directory that counts the merges: each renames the sorted file's next version over it. */
function countingDirectory(path: string): { directory: Directory; merges: () => number } {
  const inner = openDirectory(path);
  let merges = 0;
  const directory: Directory = {
    ...inner,
    rename(from, to) {
      merges++;
      inner.rename(from, to);
    },
  };
  return { directory, merges: () => merges };
}

function verdict(result: SearchResult) {
  const { seconds: _seconds, ...rest } = result;
  return rest;
}

/** A registered model with a bug, at its default bounds. */
function withBug(name: string, bug: string): () => AnyModel {
  const definition = findModel(name)!;
  return () => definition.create(resolveParams(definition, bug, {}), bug);
}

const models: readonly { readonly name: string; readonly create: () => AnyModel }[] = [
  { name: 'diehard', create: createDieHardModel },
  { name: 'migration dedup-not-migrated', create: withBug('migration', 'dedup-not-migrated') },
  { name: 'twophase rms=4', create: () => createTwoPhaseModel(4) },
  { name: 'twophase rms=5', create: () => createTwoPhaseModel(5) },
];

for (const { name, create } of models) {
  test(`${name}: on disk under --memory 64k, the in-memory counts, verdict and trace`, () => {
    const path = join(scratch, name.replace(/\W+/g, '-'));
    const { directory, merges } = countingDirectory(path);
    const disk = { directory, memoryBytes: minimumMemoryBytes };
    const memory = breadthFirstSearch(create());
    // The disk search alone (bfs.ts would rebuild a path it did not find).
    const own = diskBreadthFirstSearch(create(), { disk });
    assert.equal(verdict(own), verdict(memory));
    assert.ok(merges() >= own.depth + 1, `a merge a level at least (${merges()})`);
    assert.equal(verdict(breadthFirstSearch(create(), { disk })), verdict(memory));
    assert.equal(readdirSync(path), [], 'the scratch files are removed');
  });
}

test('twophase rms=5 under 64k merges batches within a level', () => {
  const { candidates } = diskBudget(minimumMemoryBytes);
  const { directory, merges } = countingDirectory(join(scratch, 'batches'));
  const result = diskBreadthFirstSearch(createTwoPhaseModel(5), {
    disk: { directory, memoryBytes: minimumMemoryBytes },
  });
  assert.ok(result.distinctStates > candidates * 4, 'more states than four batches hold');
  assert.ok(merges() > result.depth + 4, `more merges (${merges()}) than levels`);
});

test('diehard: the violation found on disk has the in-memory shortest trace', async () => {
  const out = (label: string) => ['--out', join(scratch, `diehard-${label}.trace.json`)];
  const memory = await runCli('check', 'diehard', '--json', '--quiet', ...out('memory'));
  const disk = await runCli('check', 'diehard', '--json', '--quiet', ...out('disk'),
    '--disk', join(scratch, 'diehard-cli'), '--memory', '64k');
  assert.is(disk.code, 1);
  const fields = (run: typeof memory) => {
    const { seconds: _s, statesPerSecond: _r, trace: _t, ...rest } = run.json();
    return rest;
  };
  assert.equal(fields(disk), fields(memory));
  assert.is(fields(disk)['traceLength'], 6);
});

test('the radix sort orders fingerprints as unsigned 64-bit numbers', () => {
  const word = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
  // Few high words, so that runs of equal high words (sorted by the low word) are common.
  const high = fc.oneof(word, fc.integer({ min: -3, max: 3 }));
  fc.assert(fc.property(fc.array(fc.tuple(high, word), { maxLength: 300 }), (list) => {
    const records = Int32Array.from(list.flatMap(([high, low], index) => [high, low, index]));
    sortFingerprintRecords(records, list.length, new Int32Array(records.length));
    const value = ([high, low]: readonly [number, number]) =>
      (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
    const sorted = list.map((_, rank) => records[rank * recordWords + 2]!);
    const expected = list.map((_, index) => index)
      .sort((a, b) => {
        const difference = value(list[a]!) - value(list[b]!);
        return difference < 0n ? -1 : difference > 0n ? 1 : a - b;
      });
    assert.equal(sorted, expected, 'indexes in fingerprint order (a stable sort)');
  }));
});

test('a word file reads back in order through a small buffer, grown for a long run', () => {
  const directory = openDirectory(join(scratch, 'words'));
  const writer = new WordFileWriter(directory, 'w.bin', 4);
  const words = Int32Array.from({ length: 3001 }, (_, index) => index * 7919 - 2 ** 30);
  writer.pushWords(words, 0, words.length);
  writer.close();
  assert.is(writer.written, words.length);
  const reader = new WordFileReader(directory, 'w.bin', 4);
  assert.ok(reader.ensure(3));
  const unread = (count: number) =>
    [...reader.words.subarray(reader.position, reader.position + count)];
  assert.equal(unread(3), [...words.subarray(0, 3)]);
  reader.position += 3;
  assert.ok(reader.ensure(2500), 'a run longer than the buffer');
  assert.equal(unread(2500), [...words.subarray(3, 2503)]);
  reader.position += 2500;
  assert.not.ok(reader.ensure(499), 'only 498 words are left');
  assert.ok(reader.ensure(498));
  reader.close();
  assert.ok(new WordFileReader(directory, 'none.bin', 4).ensure(0), 'a missing file reads empty');
  assert.not.ok(new WordFileReader(directory, 'none.bin', 4).ensure(1));
});

test('the header says the search runs on disk', async () => {
  const run = await runCli('check', 'twophase', '--rms', '3', '--no-liveness',
    '--disk', join(scratch, 'header'));
  assert.is(run.code, 0);
  assert.match(run.stderr, /\(bfs, 1 worker, on disk\)/);
});

test('--memory sizes: k, m, g are powers of 1024', () => {
  assert.is(parseMemory('64k'), 65536);
  assert.is(parseMemory('512m'), 512 * 2 ** 20);
  assert.is(parseMemory('2G'), 2 * 2 ** 30);
  assert.is(parseMemory('100000'), 100000);
});

const refusedDirectory = join(scratch, 'refused');
const refused: readonly (readonly [string, readonly string[], RegExp])[] = [
  ['no digits', ['--disk', refusedDirectory, '--memory', 'lots'], /--memory expects a size/],
  ['an unknown unit', ['--disk', refusedDirectory, '--memory', '12x'], /--memory expects a size/],
  ['a negative size', ['--disk', refusedDirectory, '--memory', '-5m'], /--memory expects a size/],
  ['a fraction', ['--disk', refusedDirectory, '--memory', '1.5g'], /--memory expects a size/],
  ['less than 64k', ['--disk', refusedDirectory, '--memory', '1k'], /at least 64k/],
  ['--memory without --disk', ['--memory', '512m'], /--memory needs --disk/],
  ['coverage', ['--disk', refusedDirectory, '--coverage'], /--coverage/],
  ['a checkpoint', ['--disk', refusedDirectory, '--checkpoint', 'C'], /--checkpoint/],
  ['dfs', ['--disk', refusedDirectory, '--strategy', 'dfs'], /--strategy bfs/],
  ['a file as DIR', ['--disk', 'package.json'], /--disk package.json: EEXIST/],
  ['max-states', ['--disk', refusedDirectory, '--max-states', '10'], /--max-states/],
];

for (const [what, flags, reason] of refused) {
  test(`--disk refuses ${what} in one line, exit 2`, async () => {
    const run = await runCli('check', 'diehard', '--quiet', ...flags);
    assert.is(run.code, 2);
    assert.match(run.stderr, reason);
    assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
  });
}

test.run();
