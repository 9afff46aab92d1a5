/**
 * `npm run bench -- mbt`: model steps driven through the runtime per minute (`shardkv mbt`,
 * issue 23's target: 100,000 a minute), by wall clock and by this process's CPU time (the
 * machine is shared: the CPU figure is what a quiet machine would give), with the load.
 */
import { loadavg } from 'node:os';
import { resolveParams } from '../checker/params.js';
import { findModel } from '../models/registry.js';
import { runMbt, undrivenActions } from '../verify/mbt/mbt.js';
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

export const mbtBench: BenchSection = {
  name: 'mbt',
  description: 'model steps through the runtime per minute (shardkv mbt, seed 1)',
  async run() {
    for (const budget of budgets) {
      const definition = findModel(budget.model)!;
      const params = resolveParams(definition, undefined, budget.bounds);
      const target = { name: budget.model, params, model: definition.create(params, undefined) };
      const schedules = randomWalks(target.model, drivableBy(undrivenActions(target)),
        { walks: budget.walks, depth: budget.depth, seed: 1 });
      const cpu = process.cpuUsage();
      const started = performance.now();
      const outcome = await runMbt(target, schedules);
      const wall = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      const perMinute = (seconds: number) => Math.round(outcome.steps / seconds * 60);
      console.log(
        `${budget.model.padEnd(10)} ${outcome.schedules} walks, ${outcome.steps} steps ` +
          `(${outcome.result}) in ${wall.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU: ` +
          `${perMinute(wall)} steps/min wall, ${perMinute(cpuSeconds)} steps/min CPU; ` +
          `load ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  },
};
