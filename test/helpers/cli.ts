// Runs the CLI in-process and captures what it prints.
import { main } from '../../cli/main.js';

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
