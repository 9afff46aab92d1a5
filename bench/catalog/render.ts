/**
 * The bug x tool matrix as a Markdown table (docs/catalog.md): a finding where the tool found
 * the bug, else the stated reason (reasons.ts), else what the tool said ("not found: ...").
 * No cell is left empty.
 */
import { reasonOf, type Tool } from './reasons.js';
import type {
  CheckFinding, ConformFinding, MbtFinding, Miss, ReplayFinding, SimulateFinding,
} from './tools.js';

export interface MatrixRow {
  readonly bug: string;
  readonly model: string;
  cells: {
    check?: CheckFinding | Miss;
    simulate?: SimulateFinding | Miss;
    replay?: ReplayFinding | Miss;
    mbt?: MbtFinding | Miss;
    conform?: ConformFinding | Miss;
  };
}

const tools: readonly Tool[] = ['check', 'simulate', 'replay', 'mbt', 'conform'];
const count = (value: number) => value.toLocaleString('en-US');

function finding(tool: Tool, cell: object): string {
  switch (tool) {
    case 'check': {
      const found = cell as CheckFinding;
      return `${found.invariant}, ${found.steps} steps, ${count(found.states)} states, ` +
        `${found.seconds} s`;
    }
    case 'simulate': {
      const found = cell as SimulateFinding;
      return `seed ${found.seed}: ${found.invariant}, ${found.seconds} s`;
    }
    case 'replay': {
      const found = cell as ReplayFinding;
      return `reproduced: ${found.invariant} at step ${found.step}`;
    }
    case 'mbt': {
      const found = cell as MbtFinding;
      return found.guided === true ? `guided walks: ${found.summary}` : found.summary;
    }
    case 'conform': {
      const found = cell as ConformFinding;
      return `seed ${found.seed}: ${found.divergence}`;
    }
  }
}

/** A cell's text: a finding, else the reason the tool cannot see the bug, else its miss. */
export function cellText(row: MatrixRow, tool: Tool): string {
  const cell = row.cells[tool];
  if (cell !== undefined && !('missed' in cell)) return finding(tool, cell);
  const reason = reasonOf(tool, row.bug);
  if (reason !== undefined) return `cannot see it, because ${reason}`;
  if (tool === 'conform' && cell === undefined) {
    const failing = row.cells.simulate;
    return failing !== undefined && !('missed' in failing)
      ? `not run in this generation (\`npm run catalog -- --only ${row.bug}\` runs it)`
      : 'not run: no failing simulator seed';
  }
  if (cell === undefined) return 'not run';
  const missed = (cell as Miss).missed;
  return missed.startsWith('not ') ? missed : `not found: ${missed}`;
}

const escape = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderMatrix(rows: readonly MatrixRow[], seeds: readonly [number, number]) {
  const header = `| bug (model) | check | simulate (seeds ${seeds[0]}..${seeds[1]}) | ` +
    'replay --runtime | mbt | conform (the failing seed, traced) |';
  const lines = [header, '|---|---|---|---|---|---|'];
  for (const row of rows) {
    const cells = tools.map((tool) => escape(cellText(row, tool)));
    lines.push(`| \`${row.bug}\` (${row.model}) | ${cells.join(' | ')} |`);
  }
  return lines.join('\n') + '\n';
}
