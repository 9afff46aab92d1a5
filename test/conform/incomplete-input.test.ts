// Issue 25's conform defects: input that is incomplete rather than wrong is malformed (exit
// 2, one line naming the file), never a divergence or a pass: a node trace cut mid-line or
// before a send another node received, a node trace missing, an empty history.jsonl.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';
import { tracedRun, writeTraces, type TracedRun } from './traced-run.js';

let run: TracedRun;

test.before(async () => {
  run = await tracedRun(1, { steps: 1_000, faults: 'none' });
});

/** A copy of the run with `edit` applied to its traces folder. */
function copyWith(edit: (folder: string) => void): string {
  const directory = scratchDirectory('shardkv-incomplete-');
  writeTraces(directory, run.result);
  edit(join(directory, 'traces'));
  return directory;
}

async function refused(directory: string, reason: RegExp): Promise<void> {
  const result = await runCli('conform', directory);
  assert.is(result.code, 2, result.stdout);
  assert.is(result.stdout, '');
  assert.is(result.stderr.split('\n').length, 1, result.stderr);
  assert.match(result.stderr, reason);
}

/** The node whose raft messages another node received first: a sender. */
const sender = 'g100-0';

test('the untouched copy conforms', async () => {
  assert.is((await runCli('conform', copyWith(() => undefined))).code, 0);
});

test('a node trace cut mid-line is a truncated file', async () => {
  await refused(copyWith((folder) => {
    const path = join(folder, `${sender}.jsonl`);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, Math.floor(text.length / 2)));
  }), new RegExp(`^shardkv conform: ${sender}\\.jsonl is truncated: line \\d+ ends ` +
    'without a newline'));
});

test('a node trace cut at a line end, before a send another node received', async () => {
  await refused(copyWith((folder) => {
    const path = join(folder, `${sender}.jsonl`);
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n');
  }), new RegExp(`^shardkv conform: ${sender}\\.jsonl is truncated: it ends at Lamport ` +
    `clock \\d+, before message ${sender}:\\d+:\\d+ left it at \\d+ \\(g100-\\d received it\\)`));
});

test('a missing node trace is named, not a divergence', async () => {
  await refused(copyWith((folder) => rmSync(join(folder, `${sender}.jsonl`))),
    new RegExp(`^shardkv conform: no trace of ${sender} \\(${sender}\\.jsonl\\): ` +
      'g100-\\d received its message'));
});

test('an empty history.jsonl is refused', async () => {
  await refused(copyWith((folder) => writeFileSync(join(folder, 'history.jsonl'), '')),
    /^shardkv conform: history\.jsonl is empty/);
});

test.run();
