// The disk search on two workers (checker/disk-parallel.ts): under --memory 64k, so that every
// level merges several batches, its counts, verdict and trace are those of one thread on disk
// and of the search in memory, the trace read from its own parent links.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { diskBreadthFirstSearch } from '../../checker/disk-bfs.js';
import { minimumMemoryBytes } from '../../checker/disk-fingerprint-set.js';
import { parallelDiskSearch } from '../../checker/disk-parallel.js';
import type { ModelSource } from '../../checker/load-model.js';
import type { AnyModel, ModelDefinition, Params } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import type { SearchResult } from '../../checker/search.js';
import { openDirectory } from '../../cli/file-directory.js';
import { findModel, registryModule } from '../../models/registry.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';
import { deadlockDefinition, outsideDefinition } from './disk-edge-models.js';

const scratch = scratchDirectory('shardkv-disk-workers-');
const edgeModule = fileURLToPath(new URL('./disk-edge-models.ts', import.meta.url));

interface Case {
  readonly name: string;
  readonly definition: ModelDefinition;
  readonly source: ModelSource;
  readonly bug?: string;
  readonly given?: Record<string, string>;
  /** What the case must show, so that it cannot pass vacuously. */
  readonly expect: (result: SearchResult) => boolean;
}

const registered = (name: string, bug: string | undefined, given: Record<string, string>,
  expect: Case['expect']): Case => ({
  name: `${name}${bug ? ` ${bug}` : ''} ${JSON.stringify(given)}`,
  definition: findModel(name)!,
  source: { module: registryModule, name },
  ...(bug ? { bug } : {}),
  given,
  expect,
});

const cases: readonly Case[] = [
  registered('diehard', undefined, {}, (result) => result.path?.actionIndexes.length === 6),
  registered('twophase', undefined, { rms: '5' }, (result) => result.distinctStates === 8832),
  registered('migration', 'dedup-not-migrated', {},
    (result) => result.invariant === 'ExactlyOnce'),
  registered('raft', 'forget-vote-on-restart', {},
    (result) => result.invariant === 'ElectionSafety'),
  { name: 'a deadlock', definition: deadlockDefinition,
    source: { module: edgeModule, name: 'disk-deadlock' },
    expect: (result) => result.invariant === 'Deadlock' },
  { name: 'an invariant broken outside the bounds', definition: outsideDefinition,
    source: { module: edgeModule, name: 'disk-outside' },
    expect: (result) => result.invariant === 'Not23' },
];

const verdict = ({ seconds: _seconds, ...rest }: SearchResult) => rest;

for (const { name, definition, source, bug, given = {}, expect } of cases) {
  test(`${name}: on disk on 2 workers, one thread's counts, verdict and trace`, async () => {
    const params: Params = resolveParams(definition, bug, given);
    const create = (): AnyModel => definition.create(params, bug);
    const memory = verdict(breadthFirstSearch(create()));
    assert.ok(expect(memory as SearchResult), `the case shows what it is for: ${memory.result}`);
    const path = join(scratch, name.replace(/\W+/g, '-'));
    const disk = { directory: openDirectory(path), memoryBytes: minimumMemoryBytes };
    assert.equal(verdict(diskBreadthFirstSearch(create(), { disk })), memory);
    const request = { model: source, params, bug, workers: 2 };
    // The workers' path (false: they start before the first level).
    assert.equal(verdict(await parallelDiskSearch(create(), request, { disk }, false)), memory);
    // Levels on this thread until the workers are ready, theirs after.
    assert.equal(verdict(await parallelDiskSearch(create(), request, { disk })), memory);
    assert.equal(readdirSync(path), [], 'the scratch files are removed');
  });
}

test('check --disk --workers 2 runs, and says so in its header', async () => {
  const run = await runCli('check', 'twophase', '--rms', '3', '--no-liveness',
    '--disk', join(scratch, 'header'), '--workers', '2');
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /\(bfs, 2 workers, on disk\)/);
});

test.run();
