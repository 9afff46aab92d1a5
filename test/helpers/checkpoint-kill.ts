/**
 * For the checkpoint tests (test/checker/checkpoint*.test.ts): a check killed with SIGKILL
 * once its first checkpoint exists, and the parts of a run's JSON summary and trace that a
 * resumed run must repeat.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { spawnChild, type CliRun } from './cli.js';

/**
 * Starts a check that writes a checkpoint at every level into `directory` and kills it with
 * SIGKILL as soon as `file` (its checkpoint's name) appears. Whether it was killed (it may
 * have ended first).
 */
export async function killedAfterCheckpoint(
  directory: string,
  argv: readonly string[],
  file = 'checkpoint.bin',
): Promise<boolean> {
  const child = spawnChild('check', ...argv, '--checkpoint', directory, '--every', '0');
  const path = join(directory, file);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let killed = false;
  for (let polls = 0; polls < 12_000 && child.exitCode === null; polls++) {
    if (existsSync(path)) {
      killed = child.kill('SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await exited;
  assert.ok(existsSync(path), 'a checkpoint was written before the kill');
  return killed;
}

/** What a resumed run must report as the uninterrupted one did: verdict, counts, trace. */
export function summaryOf(run: CliRun) {
  const json = run.json<Record<string, unknown>>();
  const trace = json['trace'] ? JSON.parse(readFileSync(String(json['trace']), 'utf8')) : null;
  return {
    code: run.code,
    result: json['result'],
    invariant: json['invariant'],
    distinctStates: json['distinctStates'],
    statesGenerated: json['statesGenerated'],
    depth: json['depth'],
    traceLength: json['traceLength'],
    steps: trace?.steps,
  };
}
