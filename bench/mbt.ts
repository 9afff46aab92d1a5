/**
 * `npm run bench -- mbt`: model steps driven through the runtime per minute (`shardkv mbt`,
 * issue 23's target: 100,000 a minute), by wall clock and by this process's CPU time (the
 * machine is shared: the CPU figure is what a quiet machine would give), with the load.
 * Each budget runs twice: `cold` (seed 1) is the first run of a model's code in this process,
 * JIT compilation included, which is a large part of a run of a few seconds; `warm` (seed 2)
 * is as many walks again, as a longer run goes on: the rate a run of a minute sustains.
 */
import { loadavg } from 'node:os';
import { resolveParams } from '../checker/params.js';
import { findModel } from '../models/registry.js';
import { runMbt, undrivenActions, type MbtTarget } from '../verify/mbt/mbt.js';
import { drivableBy, randomWalks } from '../verify/mbt/schedules.js';
import type { BenchSection } from './sections.js';

/**
 * A few seconds of each model: a shorter run is mostly warm-up (60 migration walks
 * gave 62,000 steps a CPU minute where 300 give over 100,000), and the target is a rate per
 * minute, which a run that long sustains.
 */
const budgets = [
  { model: 'raft', walks: 200, depth: 30, bounds: {} },
  { model: 'migration', walks: 300, depth: 30, bounds: {} },
  { model: 'controller', walks: 400, depth: 6, bounds: {} },
] as const;

/** One run of `budget`'s walks, timed: its line of the table. */
async function timedRun(
  target: MbtTarget,
  budget: (typeof budgets)[number],
  run: { readonly name: string; readonly seed: number },
) {
  const schedules = randomWalks(target.model, drivableBy(undrivenActions(target)),
    { walks: budget.walks, depth: budget.depth, seed: run.seed });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcome = await runMbt(target, schedules);
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const perMinute = (seconds: number) => Math.round(outcome.steps / seconds * 60);
  console.log(
    `${budget.model.padEnd(10)} ${run.name} ${outcome.schedules} walks, ${outcome.steps} steps ` +
      `(${outcome.result}) in ${wall.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU: ` +
      `${perMinute(wall)} steps/min wall, ${perMinute(cpuSeconds)} steps/min CPU; ` +
      `load ${loadavg()[0]!.toFixed(1)}`,
  );
}

export const mbtBench: BenchSection = {
  name: 'mbt',
  description: 'model steps through the runtime per minute (shardkv mbt; cold seed 1, warm seed 2)',
  async run() {
    for (const budget of budgets) {
      const definition = findModel(budget.model)!;
      const params = resolveParams(definition, undefined, budget.bounds);
      const target = { name: budget.model, params, model: definition.create(params, undefined) };
      await timedRun(target, budget, { name: 'cold', seed: 1 });
      await timedRun(target, budget, { name: 'warm', seed: 2 });
    }
  },
};
