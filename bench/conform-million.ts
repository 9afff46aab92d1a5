/**
 * `npm run bench -- conform-1m` (left out of the default run: its simulation alone takes
 * minutes): issue 23's figure. A traced simulator run of at least 1,000,000 records
 * (`shardkv simulate --trace`), then conform in a process of its own (conform-probe.ts):
 * wall and CPU seconds, records a second and peak RSS. The target: under 60 s and 1 GiB
 * (met on 2 December 2026: 44.4 s, 648 MiB, load 1.1; docs/mbt.md).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSection } from './sections.js';

/** Clock events that give seed 1 a little over a million records (1,087,425). */
const steps = 560_000;
/** The installed command, from dist/bench/. */
const shardkv = fileURLToPath(new URL('../../bin/shardkv.js', import.meta.url));
const probe = fileURLToPath(new URL('./conform-probe.js', import.meta.url));

function node(...argv: string[]): string {
  const child = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (child.status !== 0) throw new Error(`${argv.join(' ')} failed: ${child.stderr}`);
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
      node(shardkv, 'simulate', '--seed', '1', '--steps', String(steps), '--trace', directory);
      const simulationSeconds = (performance.now() - simulated) / 1000;
      const load = loadavg()[0]!;
      const found = JSON.parse(node(probe, directory).trim()) as { records: number;
        conforming: boolean; seconds: number; cpuSeconds: number; maxRssMiB: number };
      console.log(
        `${found.records} records (simulate --seed 1 --steps ${steps}, ` +
          `${simulationSeconds.toFixed(0)} s) ${found.conforming ? 'conforming' : 'DIVERGED'} ` +
          `in ${found.seconds.toFixed(1)} s wall, ${found.cpuSeconds.toFixed(1)} s CPU: ` +
          `${Math.round(found.records / found.seconds)} records/s; peak RSS ` +
          `${found.maxRssMiB.toFixed(0)} MiB; load ${load.toFixed(1)}`,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};
