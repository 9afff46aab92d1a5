// Runs the CLI in-process, or as a child process, and captures what it prints.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../cli/main.js';
import { builtCopy } from '../../impl/process/built-copy.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The last stdout line parsed as JSON (the --json summary). */
  json<T = Record<string, unknown>>(): T;
}

export async function runCli(...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
  });
  const stdout = out.join('\n');
  return {
    code,
    stdout,
    stderr: err.join('\n'),
    json: () => JSON.parse(out.at(-1) ?? 'null'),
  };
}

const childEntry = fileURLToPath(new URL('./shardkv-child.ts', import.meta.url));
const installedEntry = fileURLToPath(new URL('../../bin/shardkv.js', import.meta.url));
const cliSource = fileURLToPath(new URL('../../cli/main.ts', import.meta.url));

/**
 * The child's arguments: bin/shardkv.js (dist/, what a user runs) while dist/ is current,
 * else the sources under tsx. tsx compiles the CLI again in every child (a second or more of
 * CPU), and its checker workers each compile theirs; dist/ needs no loader.
 */
function childArguments(argv: string[]): string[] {
  return builtCopy(cliSource) === null
    ? ['--import', 'tsx', childEntry, ...argv]
    : [installedEntry, ...argv];
}

/** Starts the CLI as a child process with piped output (for tests that send it signals). */
export function spawnChild(...argv: string[]): ChildProcess {
  return spawn(process.execPath, childArguments(argv), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/** Runs the CLI in a child process, with the output as a user's terminal or pipe gets it. */
export function runChild(...argv: string[]): CliRun {
  const child = spawnSync(process.execPath, childArguments(argv), {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 120_000,
  });
  const lines = child.stdout.trimEnd().split('\n');
  return {
    code: child.status ?? -1,
    stdout: child.stdout.trimEnd(),
    stderr: child.stderr.trimEnd(),
    json: () => JSON.parse(lines.at(-1) ?? 'null'),
  };
}
