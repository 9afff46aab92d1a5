/**
 * Checker throughput and memory on TwoPhase (6, 7 and 8 resource managers): distinct and
 * generated states per second for 1 and 2 workers, heap bytes per distinct state, and the
 * ratio to the naive baseline (naive-bfs.ts). Each figure comes from a fresh process
 * (checker-run.ts), so that no run pays for another's garbage.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchSection } from './sections.js';

export interface Measurement {
  readonly distinct: number;
  readonly generated: number;
  readonly seconds: number;
  /** User and system CPU of the search (its worker threads' included). */
  readonly cpuSeconds?: number;
  readonly retainedHeap?: number | null;
  /** One thread: the visited set and the parent links (the rest of the heap: the queues). */
  readonly storedBytes?: number | null;
  readonly peakHeap?: number | null;
  readonly peakRss?: number;
}

const runner = fileURLToPath(new URL('./checker-run.js', import.meta.url));

/** Runs checker-run.js in a fresh process: `naive RMS`, `ours RMS WORKERS`, `disk RMS BYTES`. */
export function measureInProcess(...argv: (string | number)[]): Measurement {
  return run(...argv.map(String));
}

function run(...argv: string[]): Measurement {
  const child = spawnSync(process.execPath, ['--expose-gc', runner, ...argv], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`checker-run ${argv.join(' ')} failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Measurement;
}

function describe(rms: number, workers: number, result: Measurement): string {
  const perState = (bytes: number) => (bytes / result.distinct).toFixed(1);
  const memory =
    result.retainedHeap != null && result.peakHeap != null
      ? `heap per state: ${perState(result.retainedHeap)} B retained, ` +
        `${perState(result.peakHeap)} B peak`
      : `peak RSS per state: ${perState(result.peakRss ?? 0)} B`;
  return (
    `twophase rms=${rms} workers=${workers}: ${result.distinct} distinct, ` +
    `${result.generated} generated, ${result.seconds.toFixed(2)} s, ` +
    `${Math.round(result.distinct / result.seconds)} distinct/s, ` +
    `${Math.round(result.generated / result.seconds)} generated/s, ${memory}`
  );
}

export const checkerBench: BenchSection = {
  name: 'checker',
  description: 'BFS on TwoPhase: states/s and bytes per distinct state; naive baseline ratio',
  async run() {
    const naive = run('naive', '7');
    const ours = run('ours', '7', '1');
    console.log(
      `naive BFS (JSON keys in a Set) rms=7: ${naive.distinct} distinct in ` +
        `${naive.seconds.toFixed(2)} s; ours ${ours.distinct} in ${ours.seconds.toFixed(2)} s: ` +
        `${(naive.seconds / ours.seconds).toFixed(1)}x faster`,
    );
    for (const rms of [6, 7, 8]) {
      for (const workers of [1, 2]) {
        console.log(describe(rms, workers, run('ours', String(rms), String(workers))));
      }
    }
  },
};
