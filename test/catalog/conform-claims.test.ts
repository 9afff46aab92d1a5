// Issue 24 item 8: each conform finding the catalog matrix claims (traces/catalog-matrix.json)
// holds: the bug's failing simulator seed, traced, diverges from the spec where the matrix
// says (`shardkv conform` replays every node with no bug switch). One traced run per claim.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MatrixRow } from '../../bench/catalog/render.js';
import { runCli } from '../helpers/cli.js';
import { tracedRun } from '../conform/traced-run.js';

const claims = JSON.parse(readFileSync('traces/catalog-matrix.json', 'utf8')) as
  { rows: MatrixRow[] };

for (const row of claims.rows) {
  const cell = row.cells.conform;
  if (cell === undefined || 'missed' in cell) continue;
  test(`${row.bug}: seed ${cell.seed}, traced, diverges: ${cell.divergence}`, async () => {
    const { directory } = await tracedRun(cell.seed, { bug: row.bug });
    const run = await runCli('conform', directory, '--json');
    assert.is(run.code, 1, run.stdout);
    assert.is(run.json<{ error: string }>().error, cell.divergence);
  });
}

test.run();
