/** `shardkv check-all` (npm start): the default bounded check of every model, as a table. */
import { resolveParams, UsageError } from '../checker/params.js';
import { runCheck } from '../checker/run.js';
import { modelDefinitions } from '../models/registry.js';
import { helpText, parseArgs, type FlagSpec } from './args.js';
import { describeBounds, round } from './check.js';
import { exitOk, exitProblem, type Io } from './io.js';
import { wrapWords } from './wrap-words.js';

const flags: readonly FlagSpec[] = [
  { name: 'json', kind: 'boolean', description: 'print one JSON object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export async function checkAllCommand(argv: readonly string[], io: Io): Promise<number> {
  const args = parseArgs(argv, flags);
  if (args.booleans.has('help')) {
    io.stdout(
      helpText(
        'shardkv check-all [--json]',
        'Runs the default bounded check of every model and prints a table.\n' +
          'Exit 1 if a model has a violation it should not have (DieHard fails on purpose).',
        flags,
      ),
    );
    return exitOk;
  }
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  const rows = [];
  for (const definition of modelDefinitions) {
    const params = resolveParams(definition, undefined, {});
    io.stderr(`checking ${definition.name} ...`);
    const { search } = await runCheck({
      definition,
      params,
      bug: undefined,
      strategy: 'bfs',
      workers: 1,
      seed: 1,
      search: {},
    });
    const expected =
      search.result === 'violation'
        ? search.invariant === definition.expectedViolation
        : search.result === 'ok' && definition.expectedViolation === undefined;
    rows.push({
      model: definition.name,
      bounds: describeBounds(definition, params) || '-',
      result: search.result + (search.invariant ? ` of ${search.invariant}` : ''),
      expected,
      distinctStates: search.distinctStates,
      seconds: round(search.seconds),
    });
  }
  if (args.booleans.has('json')) {
    io.stdout(JSON.stringify({ ok: rows.every((row) => row.expected), models: rows }));
  } else {
    io.stdout(
      table(
        ['model', 'bounds', 'result', 'distinct states', 'seconds'],
        rows.map((row) => [
          row.model,
          row.bounds,
          row.result +
            (!row.expected ? ' (UNEXPECTED)' : row.result === 'ok' ? '' : ', as expected'),
          String(row.distinctStates),
          row.seconds.toFixed(2),
        ]),
      ),
    );
  }
  return rows.every((row) => row.expected) ? exitOk : exitProblem;
}

/** The bounds column wraps at this width, so the table fits a terminal of ~110 columns. */
const boundsWidth = 34;

/** Columns padded to their widest cell; a cell with several lines makes a row of several. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) =>
    row.map((cell, column) => (column === 1 ? wrapWords(cell, boundsWidth) : [cell])),
  );
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.flatMap((row) => row[column]!.map((line) => line.length))),
  );
  const line = (parts: readonly string[]) =>
    parts
      .map((part, column) => part.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const body = cells.flatMap((row) => {
    const height = Math.max(...row.map((lines) => lines.length));
    return Array.from({ length: height }, (_, index) =>
      line(row.map((lines) => lines[index] ?? '')),
    );
  });
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...body].join('\n');
}
