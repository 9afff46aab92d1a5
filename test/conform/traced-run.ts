/**
 * A traced simulator run written as `shardkv simulate --trace DIR` writes it (DIR/traces/
 * NODE.jsonl and history.jsonl), for the conformance tests.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulationOptions, type SimulationOptions } from '../../verify/simulate/options.js';
import { runSimulation, type SimulationResult } from '../../verify/simulate/run.js';
import { shellRuntime } from '../../verify/simulate/shell-runtime.js';
import { scratchDirectory } from '../helpers/scratch.js';

export interface TracedRun {
  readonly directory: string;
  readonly result: SimulationResult;
}

export async function tracedRun(
  seed: number, overrides: Partial<Omit<SimulationOptions, 'seed'>> = {},
): Promise<TracedRun> {
  const result = await runSimulation(simulationOptions(seed, { ...overrides, trace: true }),
    shellRuntime);
  const directory = scratchDirectory(`shardkv-conform-${seed}-`);
  writeTraces(directory, result);
  return { directory, result };
}

export function writeTraces(directory: string, result: SimulationResult): void {
  const folder = join(directory, 'traces');
  mkdirSync(folder, { recursive: true });
  for (const [node, lines] of result.traces!) {
    writeFileSync(join(folder, `${node}.jsonl`), lines.join('\n') + '\n');
  }
  writeFileSync(join(folder, 'history.jsonl'), result.history);
}

/** A copy of a traced run whose file `name` is rewritten by `edit` (lines in, lines out). */
export function tampered(
  run: TracedRun, name: string, edit: (lines: string[]) => string[],
): string {
  const directory = scratchDirectory('shardkv-tampered-');
  writeTraces(directory, run.result);
  const path = join(directory, 'traces', name);
  const lines = readFileSync(path, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  writeFileSync(path, edit(lines).join('\n') + '\n');
  return directory;
}
