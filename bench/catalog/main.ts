/**
 * `npm run catalog`: regenerates the bug x tool matrix (issue 24 item 8) in docs/catalog.md
 * (between its matrix markers) and its claims in traces/catalog-matrix.json, which
 * test/catalog/matrix.test.ts checks at CI budgets. For every catalogued bug (`shardkv bugs`)
 * it runs `check`, `simulate --seeds 1..1000`, `replay --runtime` of the kept trace,
 * `mbt --bug` and `conform` of the simulator's failing seed, traced.
 * A generator, not a test: it may take hours at the full budget. Where a tool cannot see a
 * bug (reasons.ts), the simulator, mbt and conform are not run and the cell is the reason.
 *
 *   npm run catalog -- [--seeds A..B] [--simulate-seconds S] [--check-seconds S]
 *                      [--simulate-results DIR] [--only NAME,NAME] [--skip simulate,conform]
 *                      [--claims FILE]
 *
 * --simulate-results DIR reads searches run before (DIR/NAME.out and NAME.err: the stdout and
 * stderr of `shardkv simulate --seeds A..B --bug NAME --json`) instead of searching again.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { reasonOf, type Tool } from './reasons.js';
import { renderMatrix, type MatrixRow } from './render.js';
import {
  checkCell, conformCell, isMiss, mbtCell, replayCell, savedSimulateCell, simulateCell,
  type CatalogBug,
} from './tools.js';

const docsFile = 'docs/catalog.md';
/** `--claims FILE`: where the claims go (parallel runs on parts of the catalog). */
const claimsDefault = 'traces/catalog-matrix.json';
const begin = '<!-- matrix:begin (npm run catalog writes this table) -->';
const end = '<!-- matrix:end -->';
/** `--check-seconds S`: the check's --time-limit (an incomplete check is a miss). */
const checkSecondsDefault = 1_800;
const toolSecondsMax = 600;
/** `--simulate-seconds S`: stop a bug's seed search after S s (its cell says how far it got). */
const simulateSecondsDefault = 6 * 3_600;

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

function parseSeeds(text: string | undefined): [number, number] {
  const match = /^(\d+)\.\.(\d+)$/.exec(text ?? '1..1000');
  if (match === null) throw new Error(`--seeds takes A..B, got ${text}`);
  return [Number(match[1]), Number(match[2])];
}

function catalog(): CatalogBug[] {
  const text = execFileSync(process.execPath, ['bin/shardkv.js', 'bugs', '--json'],
    { encoding: 'utf8' });
  return JSON.parse(text.trim().split('\n').at(-1)!) as CatalogBug[];
}

interface Budget {
  readonly seeds: [number, number];
  readonly simulateSeconds: number;
  readonly checkSeconds: number;
  readonly simulateResults: string | undefined;
}

function rowOf(
  bug: CatalogBug,
  budget: Budget,
  skip: readonly Tool[],
  kept: MatrixRow | undefined,
) {
  const runs = (tool: Tool) => !skip.includes(tool);
  const row: MatrixRow = { bug: bug.name, model: bug.model, cells: {} };
  if (runs('check')) row.cells.check = checkCell(bug, budget.checkSeconds);
  const simulateReason = reasonOf('simulate', bug.name);
  if (runs('simulate') && simulateReason === undefined) {
    const saved = budget.simulateResults === undefined ? undefined
      : savedSimulateCell(bug, budget.seeds, budget.simulateResults);
    row.cells.simulate = saved ?? simulateCell(bug, budget.seeds, budget.simulateSeconds);
  }
  if (runs('replay')) row.cells.replay = replayCell(bug, toolSecondsMax);
  if (runs('mbt') && reasonOf('mbt', bug.name) === undefined) {
    row.cells.mbt = mbtCell(bug, toolSecondsMax);
  }
  // A skipped simulate column keeps its last seed: conform can run on it alone.
  const failing = row.cells.simulate ?? kept?.cells.simulate;
  if (runs('conform') && failing !== undefined && !isMiss(failing)) {
    row.cells.conform = conformCell(bug, failing.seed, toolSecondsMax);
  }
  return row;
}

function main(): void {
  const seeds = parseSeeds(flag('seeds'));
  const simulateSeconds = Number(flag('simulate-seconds') ?? simulateSecondsDefault);
  const checkSeconds = Number(flag('check-seconds') ?? checkSecondsDefault);
  const only = flag('only')?.split(',');
  const skip = (flag('skip')?.split(',') ?? []) as Tool[];
  const catalogued = catalog();
  const bugs = catalogued.filter((bug) => only === undefined || only.includes(bug.name));
  const claimsFile = flag('claims') ?? claimsDefault;
  const previous = readClaims(claimsFile);
  const rows: MatrixRow[] = [];
  for (const bug of bugs) {
    const simulateResults = flag('simulate-results');
    // A skipped tool keeps the cell of the last run, so one column can be regenerated alone.
    const kept = previous.find((old) => old.bug === bug.name);
    const budget = { seeds, simulateSeconds, checkSeconds, simulateResults };
    const row = rowOf(bug, budget, skip, kept);
    row.cells = { ...kept?.cells, ...row.cells };
    // A stated reason replaces what mbt said before it was stated.
    if (reasonOf('mbt', bug.name) !== undefined) delete row.cells.mbt;
    rows.push(row);
    process.stderr.write(`catalog: ${bug.name} done\n`);
  }
  // Catalog order; a bug not run this time keeps its last row.
  const all = catalogued.flatMap((bug) => {
    const row = rows.find((candidate) => candidate.bug === bug.name) ??
      previous.find((old) => old.bug === bug.name);
    return row === undefined ? [] : [row];
  });
  writeFileSync(claimsFile, JSON.stringify({ seeds, rows: all }, null, 2) + '\n');
  const docs = readFileSync(docsFile, 'utf8');
  const from = docs.indexOf(begin);
  const to = docs.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${docsFile} has no matrix markers`);
  const table = renderMatrix(all, seeds);
  writeFileSync(docsFile, docs.slice(0, from + begin.length) + '\n' + table + docs.slice(to));
}

function readClaims(claimsFile: string): MatrixRow[] {
  try {
    return (JSON.parse(readFileSync(claimsFile, 'utf8')) as { rows: MatrixRow[] }).rows;
  } catch {
    return [];
  }
}

main();
