/**
 * `shardkv lincheck FILE`: is a KV history linearizable? Exit 0 yes, 1 no or undecided within
 * the time limit (never a silent pass), 2 unreadable or invalid history (CONTRACT, "Histories").
 */
import { UsageError } from '../checker/params.js';
import { HistoryError } from '../checker/lincheck/history.js';
import { renderHtml } from '../checker/lincheck/html.js';
import {
  explanationLines, lincheckText, searchBytesMax, type LincheckResult,
} from '../checker/lincheck/index.js';
import { helpText, parseArgs, positiveNumberFlag, type FlagSpec } from './args.js';
import { mebibyte, readTextFile, writeTextFile } from './input.js';
import { exitOk, exitProblem, type Io } from './io.js';

const defaultTimeLimitSeconds = 60;
/** The largest history lincheck reads (Porcupine's largest corpus file is under 1 MiB). */
export const historyLimitBytes = 256 * mebibyte;

const flags: readonly FlagSpec[] = [
  {
    name: 'time-limit',
    kind: 'value',
    valueName: 'SECONDS',
    description:
      'give up with verdict unknown (exit 1) after this long ' +
      `(default ${defaultTimeLimitSeconds})`,
  },
  {
    name: 'html',
    kind: 'value',
    valueName: 'FILE',
    description: 'write a self-contained timeline page of the operations per key',
  },
  { name: 'json', kind: 'boolean', description: 'print one JSON object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const lincheckHelp = helpText(
  'shardkv lincheck FILE [--time-limit SECONDS] [--html FILE] [--json]',
  'Checks that a key/value history (JSON lines: client, op get|put|append, key, value?,\n' +
    'output?, call, return?, outcome ok|unknown) is linearizable, key by key.\n' +
    'Exit: 0 linearizable, 1 not linearizable (the key, its longest linearizable prefix and\n' +
    'the operation that cannot follow it are printed) or unknown (time limit reached, or\n' +
    `the search's memory bound of ${searchBytesMax / mebibyte} MiB),\n` +
    '2 unreadable, invalid (the line is named) or larger than 256 MiB history.',
  flags,
);

export function lincheckCommand(argv: readonly string[], io: Io): number {
  const args = parseArgs(argv, flags);
  if (args.booleans.has('help')) {
    io.stdout(lincheckHelp);
    return exitOk;
  }
  const [file, ...extra] = args.positionals;
  if (file === undefined) throw new UsageError('lincheck needs a history FILE');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const timeLimitSeconds = positiveNumberFlag(args, 'time-limit') ?? defaultTimeLimitSeconds;
  const text = readTextFile(file, historyLimitBytes);
  let result: LincheckResult;
  try {
    result = lincheckText(text, { timeLimitSeconds });
  } catch (error) {
    if (error instanceof HistoryError) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
  const htmlFile = args.values['html'];
  if (htmlFile !== undefined) writeTextFile(htmlFile, renderHtml(result));
  report(result, timeLimitSeconds, args.booleans.has('json'), io);
  return result.verdict === 'linearizable' ? exitOk : exitProblem;
}

function report(result: LincheckResult, timeLimitSeconds: number, json: boolean, io: Io): void {
  const seconds = Number(result.seconds.toFixed(3));
  const sizes =
    `${result.operations} operation${result.operations === 1 ? '' : 's'} on ` +
    `${result.keys} key${result.keys === 1 ? '' : 's'}`;
  const key = JSON.stringify(result.key);
  const empty = result.operations === 0;
  const headline =
    result.verdict === 'linearizable'
      ? empty
        ? 'linearizable: the history is empty (no operations to check)'
        : `linearizable: ${sizes} (${seconds} s)`
      : result.verdict === 'not-linearizable'
        ? `not linearizable: key ${key} (${sizes}, ${seconds} s)`
        : `unknown: ${result.reason === 'memory-bound'
          ? `the search reached its memory bound of ${searchBytesMax / mebibyte} MiB`
          : `the time limit of ${timeLimitSeconds} s ran out`} before a verdict ` +
          `on key ${key} (${sizes}); this is not a pass`;
  const lines =
    result.explanation && result.verdict === 'not-linearizable'
      ? explanationLines(result.explanation)
      : [];
  if (!json) {
    io.stdout([headline, ...lines].join('\n'));
    return;
  }
  if (lines.length > 0) io.stderr([headline, ...lines].join('\n'));
  const { explanation } = result;
  io.stdout(
    JSON.stringify({
      ok: result.verdict === 'linearizable',
      result: result.verdict,
      ...(result.key === undefined ? {} : { key: result.key }),
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      seconds,
      operations: result.operations,
      keys: result.keys,
      ...(empty ? { empty: true } : {}),
      ...(result.verdict === 'linearizable' ? {} : { error: headline }),
      ...(explanation && result.verdict === 'not-linearizable'
        ? {
            explanation: {
              prefixLines: explanation.prefix.map((operation) => operation.line),
              state: explanation.state,
              failingLine: explanation.failing?.line,
              failing: explanation.failing?.description,
            },
          }
        : {}),
    }),
  );
}
