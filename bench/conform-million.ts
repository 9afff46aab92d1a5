/**
 * `npm run bench -- conform-1m` (left out of the default run: its simulation alone takes
 * minutes): issue 23's figure. A traced simulator run of at least 1,000,000 records
 * (`shardkv simulate --trace`), then conform in a process of its own (conform-probe.ts), on
 * the threads `shardkv conform` chooses and then on one thread, for the ratio: wall and CPU
 * seconds (all, and the trace checks before the history's linearizability; the main thread's
 * CPU), records a second and peak RSS. The target: under 60 s and 1 GiB (docs/mbt.md).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSection } from './sections.js';

/**
 * Clock events tried first. The records a step makes move with the simulator (on 3 December
 * 2026 300,000 steps gave 1,004,697 records, 320,000 after two clerk changes 638,215,
 * 400,000 at 16:56 UTC 680,766, 600,000 at 20:05 UTC 3,716,851, 170,000 at 20:17 UTC
 * 448,810 and 300,000 1,077,914), so a run short of a million is simulated again with
 * proportionally more.
 */
const stepsFirst = 300_000;
const attemptsMax = 3;
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

/** The records of the node traces in DIR/traces: their lines. */
function recordsIn(directory: string): number {
  const folder = join(directory, 'traces');
  const buffer = Buffer.allocUnsafe(1 << 20);
  let lines = 0;
  for (const name of readdirSync(folder)) {
    if (!name.endsWith('.jsonl') || name === 'history.jsonl') continue;
    const descriptor = openSync(join(folder, name), 'r');
    for (;;) {
      const count = readSync(descriptor, buffer);
      if (count === 0) break;
      for (let at = buffer.indexOf(10); at >= 0 && at < count; at = buffer.indexOf(10, at + 1)) {
        lines++;
      }
    }
    closeSync(descriptor);
  }
  return lines;
}

/** A traced run of seed 1 in a fresh folder with at least a million records. */
function simulateMillion(): { directory: string; steps: number; verdict: string;
  seconds: number } {
  let steps = stepsFirst;
  for (let attempt = 1; ; attempt++) {
    const directory = mkdtempSync(join(tmpdir(), 'shardkv-conform-1m-'));
    const started = performance.now();
    const simulation = node([shardkv, 'simulate', '--seed', '1', '--steps', String(steps),
      '--trace', directory], [0, 1]);
    const seconds = (performance.now() - started) / 1000;
    const verdict = /^seed 1: ([^;]*);/m.exec(simulation)?.[1] ?? '?';
    const records = recordsIn(directory);
    if (records >= recordsMin) return { directory, steps, verdict, seconds };
    rmSync(directory, { recursive: true, force: true });
    if (attempt === attemptsMax) {
      throw new Error(`${steps} steps gave ${records} records: fewer than ${recordsMin}`);
    }
    steps = Math.ceil((steps * 1.2 * recordsMin) / Math.max(records, 1));
  }
}

interface Probe {
  records: number; threads: number; verdict: string; seconds: number; traceSeconds: number;
  traceCpuSeconds: number; mainCpuSeconds: number | null; cpuSeconds: number; retained: number;
  traceMaxRssMiB: number; maxRssMiB: number;
}

/** One conform of the traces in `directory` (`threads`: as the CLI chooses) as one line. */
function probeLine(directory: string, threads: number | undefined): string {
  const load = loadavg()[0]!;
  const found = JSON.parse(node([probe, directory,
    ...(threads === undefined ? [] : [String(threads)])]).trim()) as Probe;
  const main = found.mainCpuSeconds === null ? ''
    : `, ${found.mainCpuSeconds.toFixed(1)} s of it on the main thread`;
  return `${found.records} records on ${found.threads} threads ${found.verdict} in ` +
    `${found.seconds.toFixed(1)} s wall (trace checks ${found.traceSeconds.toFixed(1)} s), ` +
    `${found.cpuSeconds.toFixed(1)} s CPU (trace checks ` +
    `${found.traceCpuSeconds.toFixed(1)} s${main}): ` +
    `${Math.round(found.records / found.traceSeconds)} records/s in the trace checks by ` +
    `wall, ${Math.round(found.records / found.traceCpuSeconds)} by CPU; ` +
    `${found.retained} records kept at the end; ` +
    `peak RSS ${found.traceMaxRssMiB.toFixed(0)} MiB to the end of the trace checks, ` +
    `${found.maxRssMiB.toFixed(0)} MiB in all; load ${load.toFixed(1)}`;
}

export const conformMillionBench: BenchSection = {
  name: 'conform-1m',
  description: 'conform of a traced simulator run of a million records (opt-in)',
  optIn: true,
  async run() {
    const { directory, steps, verdict, seconds } = simulateMillion();
    try {
      console.log(`${steps} steps of simulate --seed 1 (${verdict}, ${seconds.toFixed(0)} s)`);
      for (const threads of [undefined, 0]) console.log(probeLine(directory, threads));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};
