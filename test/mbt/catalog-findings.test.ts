// @tier full
// Issue 24 item 8: every mbt finding the bug x tool matrix claims (traces/catalog-matrix.json,
// written by `npm run catalog`) is what `shardkv mbt MODEL --bug NAME` finds at the catalog's
// walks (bench/catalog/tools.ts mbtArguments, guided where the claim says so): the same
// schedule, shrunk to the same step and invariant. Each run takes seconds to a minute, so the whole list runs in the full tier.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MatrixRow } from '../../bench/catalog/render.js';
import { mbtArguments } from '../../bench/catalog/tools.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

const claims = JSON.parse(readFileSync('traces/catalog-matrix.json', 'utf8')) as
  { rows: MatrixRow[] };
const findings = claims.rows.flatMap((row) => {
  const cell = row.cells.mbt;
  return cell === undefined || 'missed' in cell ? []
    : [{ row, summary: cell.summary, guided: cell.guided === true }];
});

test('the matrix claims mbt findings for each model mbt drives', () => {
  const models = new Set(findings.map(({ row }) => row.model));
  assert.equal([...models].sort(), ['controller', 'migration', 'raft']);
});

const scratch = scratchDirectory('shardkv-mbt-findings-');
for (const { row, summary, guided } of findings) {
  test(`mbt ${row.model} --bug ${row.bug}${guided ? ' --guided' : ''}: ${summary}`, async () => {
    const run = await runCli(...mbtArguments({ model: row.model, name: row.bug }, guided),
      '--quiet',
      '--json', '--out', join(scratch, `${row.bug}.trace.json`));
    assert.is(run.code, 1, run.stdout + run.stderr);
    assert.is(run.json<{ error: string }>().error, summary);
  });
}

test.run();
