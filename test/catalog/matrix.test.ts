// Issue 24 item 8: the bug x tool matrix (docs/catalog.md, written by `npm run catalog` with
// its claims in traces/catalog-matrix.json) claims only what holds at CI budgets: every
// catalogued bug has a row and no cell is empty; a claimed check finding is the kept trace,
// which replays to that invariant at that step; a claimed simulator seed is the pinned one
// test/sim/bugs.test.ts reruns; a claimed runtime replay is one reproduce.test.ts runs; a
// claimed conform divergence comes from that seed; no stated reason stands beside a finding.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseTrace, replayTrace } from '../../checker/replay.js';
import { modelDefinitions } from '../../models/registry.js';
import { reasonOf, type Tool } from '../../bench/catalog/reasons.js';
import { cellText, type MatrixRow } from '../../bench/catalog/render.js';
import { simulatorBugSeeds } from '../sim/bug-seeds.js';
import { reproduced } from '../replay-runtime/reproduced.js';

const claims = JSON.parse(readFileSync('traces/catalog-matrix.json', 'utf8')) as
  { seeds: [number, number]; rows: MatrixRow[] };
const tools: readonly Tool[] = ['check', 'simulate', 'replay', 'mbt', 'conform'];
const found = (row: MatrixRow, tool: Tool) => {
  const cell = row.cells[tool];
  return cell !== undefined && !('missed' in cell);
};

test('every catalogued bug has a row, and every cell says something', () => {
  const catalogued = modelDefinitions.flatMap((definition) => definition.bugs.map((bug) => bug.name));
  assert.equal(claims.rows.map((row) => row.bug).sort(), [...catalogued].sort());
  for (const row of claims.rows) {
    for (const tool of tools) {
      const text = cellText(row, tool);
      assert.ok(text.length > 0 && text !== 'not run', `${row.bug} ${tool}: ${text}`);
    }
  }
});

test('no reason that a tool cannot see a bug stands beside its finding', () => {
  for (const row of claims.rows) {
    for (const tool of tools) {
      if (found(row, tool)) assert.is(reasonOf(tool, row.bug), undefined, `${row.bug} ${tool}`);
    }
  }
});

test('each claimed check finding is the kept trace, replaying to that invariant and step', () => {
  for (const row of claims.rows) {
    const cell = row.cells.check;
    if (cell === undefined || 'missed' in cell) continue;
    const definition = modelDefinitions.find((candidate) => candidate.name === row.model)!;
    const text = readFileSync(`traces/${row.model}/${row.bug}.trace.json`, 'utf8');
    const trace = parseTrace(text);
    assert.is(trace.bug, row.bug);
    const outcome = replayTrace(definition, trace);
    assert.is(outcome.result, 'violation', row.bug);
    if (outcome.result !== 'violation') continue;
    assert.is(outcome.invariant, cell.invariant, row.bug);
    assert.is(outcome.steps, cell.steps, row.bug);
  }
});

test('each claimed simulator seed is the pinned first failing seed', () => {
  for (const row of claims.rows) {
    const cell = row.cells.simulate;
    if (cell === undefined || 'missed' in cell) continue;
    const pinned = simulatorBugSeeds.find((seed) => seed.bug === row.bug);
    assert.ok(pinned, `${row.bug}: seed ${cell.seed} is not pinned in test/sim/bug-seeds.ts`);
    assert.is(cell.seed, pinned.seed, row.bug);
    assert.is(cell.invariant, pinned.invariant, row.bug);
    const conform = row.cells.conform;
    if (conform !== undefined && !('missed' in conform)) assert.is(conform.seed, cell.seed);
  }
});

test('each claimed runtime replay is one reproduce.test.ts runs, to the trace\'s invariant', () => {
  for (const row of claims.rows) {
    const cell = row.cells.replay;
    if (cell === undefined || 'missed' in cell) continue;
    assert.ok(reproduced.some(([model, bug]) => model === row.model && bug === row.bug),
      `${row.bug} is not in test/replay-runtime/reproduced.ts`);
    const trace = parseTrace(readFileSync(`traces/${row.model}/${row.bug}.trace.json`, 'utf8'));
    assert.is(cell.invariant, trace.invariant, row.bug);
    assert.is(cell.step, trace.steps.length, row.bug);
  }
});

test.run();
