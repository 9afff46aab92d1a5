/**
 * `npm run bench -- conform-1m` (left out of the default run: its simulation alone takes
 * minutes): issue 23's figure. A traced simulator run of at least 1,000,000 records
 * (`shardkv simulate --trace`), then conform in a process of its own (conform-probe.ts):
 * wall and CPU seconds (all, and the trace checks before the history's linearizability),
 * records a second and peak RSS. The target: under 60 s and 1 GiB (docs/mbt.md).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSection } from './sections.js';

/** Clock events that give seed 1 over a million records (300,000 gave 1,004,703: 3 Dec 2026). */
const steps = 320_000;
const recordsMin = 1_000_000;
/** The installed command, from dist/bench/. */
const shardkv = fileURLToPath(new URL('../../bin/shardkv.js', import.meta.url));
const probe = fileURLToPath(new URL('./conform-probe.js', import.meta.url));

/**
 * Runs node; `verdicts` are the exit statuses that are an answer, not a failure. The
 * simulator exits 1 when its own checks fail, as when the clients' history is one that
 * lincheck cannot decide in its time limit: its traces are still what conform reads.
 */
function node(argv: readonly string[], verdicts: readonly number[] = [0]): string {
  const child = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (!verdicts.includes(child.status ?? -1)) {
    throw new Error(`${argv.join(' ')} failed: ${child.stderr}`);
  }
  return child.stdout;
}

export const conformMillionBench: BenchSection = {
  name: 'conform-1m',
  description: 'conform of a traced simulator run of a million records (opt-in)',
  optIn: true,
  async run() {
    const directory = mkdtempSync(join(tmpdir(), 'shardkv-conform-1m-'));
    try {
      const simulated = performance.now();
      const simulation = node([shardkv, 'simulate', '--seed', '1', '--steps', String(steps),
        '--trace', directory], [0, 1]);
      const simulationSeconds = (performance.now() - simulated) / 1000;
      const simulationVerdict = /^seed 1: ([^;]*);/m.exec(simulation)?.[1] ?? '?';
      const load = loadavg()[0]!;
      const found = JSON.parse(node([probe, directory]).trim()) as { records: number;
        verdict: string; seconds: number; traceSeconds: number; cpuSeconds: number;
        maxRssMiB: number };
      if (found.records < recordsMin) {
        throw new Error(`${found.records} records: fewer than ${recordsMin}, raise the steps`);
      }
      console.log(
        `${found.records} records (simulate --seed 1 --steps ${steps}: ${simulationVerdict}, ` +
          `${simulationSeconds.toFixed(0)} s) ${found.verdict} in ${found.seconds.toFixed(1)} s ` +
          `wall (trace checks ${found.traceSeconds.toFixed(1)} s), ` +
          `${found.cpuSeconds.toFixed(1)} s CPU: ` +
          `${Math.round(found.records / found.traceSeconds)} records/s in the trace checks; ` +
          `peak RSS ${found.maxRssMiB.toFixed(0)} MiB; load ${load.toFixed(1)}`,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};
