/**
 * What `cluster`, `ctl` and `kv` share: subcommand dispatch with help, the `--dir` flag, and
 * CONTRACT's exit codes for cluster errors (bad input such as a DIR without a cluster: 2 with a
 * one-line reason; an operation that ran and failed: 1, with `{"ok":false,"error"}` under
 * --json).
 */
import { UsageError } from '../checker/params.js';
import { ClusterFailure, ClusterInputError } from '../impl/process/errors.js';
import { helpText, parseArgs, type FlagSpec, type ParsedArgs } from './args.js';
import { exitOk, exitProblem, exitUsage, type Io } from './io.js';
import { wrapWords } from './wrap-words.js';

export const dirFlag: FlagSpec = {
  name: 'dir', kind: 'value', valueName: 'DIR', description: 'the cluster directory (required)',
};
export const jsonFlag: FlagSpec = {
  name: 'json', kind: 'boolean', description: 'print one JSON object as the last line',
};
export const helpFlag: FlagSpec = { name: 'help', kind: 'boolean', description: 'show this help' };

export interface Subcommand {
  readonly usage: string;
  readonly summary: string;
  readonly flags: readonly FlagSpec[];
  run(args: ParsedArgs, io: Io): Promise<number>;
}

/** `shardkv GROUP SUBCOMMAND ...`: parses the subcommand's flags and runs it. */
export async function dispatch(
  group: string,
  subcommands: Readonly<Record<string, Subcommand>>,
  argv: readonly string[],
  io: Io,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    io.stdout(groupHelp(group, subcommands));
    return name === undefined ? exitUsage : exitOk;
  }
  const subcommand = subcommands[name];
  if (subcommand === undefined) {
    throw new UsageError(`unknown subcommand '${group} ${name}' (see shardkv ${group} --help)`);
  }
  const args = parseArgs(rest, subcommand.flags);
  if (args.booleans.has('help')) {
    io.stdout(helpText(subcommand.usage, subcommand.summary, subcommand.flags));
    return exitOk;
  }
  try {
    return await subcommand.run(args, io);
  } catch (error) {
    if (error instanceof ClusterInputError) throw new UsageError(error.message);
    if (!(error instanceof ClusterFailure)) throw error;
    return failed(`shardkv ${group} ${name}: ${error.message}`, args, io);
  }
}

/** Reports a failed operation: one line on stderr, and the JSON error object with --json. */
export function failed(message: string, args: ParsedArgs, io: Io): number {
  io.stderr(message);
  if (args.booleans.has('json')) io.stdout(JSON.stringify({ ok: false, error: message }));
  return exitProblem;
}

const helpColumns = 100;

/** A summary's first sentence (its lines joined), so that a listing never stops mid-sentence. */
function firstSentence(summary: string): string {
  const joined = summary.split('\n').map((line) => line.trim()).join(' ');
  const end = /\.(\s|$)/.exec(joined);
  return end === null ? joined : joined.slice(0, end.index);
}

function groupHelp(group: string, subcommands: Readonly<Record<string, Subcommand>>): string {
  const width = Math.max(...Object.keys(subcommands).map((name) => name.length));
  return [
    `Usage: shardkv ${group} SUBCOMMAND --dir DIR [options]`,
    '',
    'Subcommands:',
    ...Object.entries(subcommands).flatMap(([name, subcommand]) =>
      wrapWords(firstSentence(subcommand.summary), helpColumns - width - 4)
        .map((line, index) => `  ${(index === 0 ? name : '').padEnd(width)}  ${line}`)),
    '',
    `\`shardkv ${group} SUBCOMMAND --help\` describes one.`,
    'Exit codes: 0 success, 1 the operation failed or was refused, 2 usage error or no',
    'cluster in DIR.',
  ].join('\n');
}

export function requireDir(args: ParsedArgs): string {
  const directory = args.values['dir'];
  if (directory === undefined || directory === '') throw new UsageError('--dir DIR is required');
  return directory;
}

export function noPositionals(args: ParsedArgs, count = 0): void {
  if (args.positionals.length > count) {
    throw new UsageError(`unexpected argument '${args.positionals[count]}'`);
  }
}
