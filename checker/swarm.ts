/**
 * Swarm simulation: independent seeded random searches (simulate.ts), one per seed of a
 * range, run in seed order until one finds a violation. A range splits across processes or
 * machines by seed (process k runs seeds k*N+1 .. k*N+N) under any job runner, and
 * `shardkv merge` combines their JSON summaries: the violation of the least seed wins, so
 * the merged verdict does not depend on how the range was split.
 */
import type { AnyModel } from './model.js';
import type { SearchResult } from './search.js';
import { simulate, type SimulationOptions } from './simulate.js';

export interface SwarmSummary {
  readonly firstSeed: number;
  /** Seeds asked for: firstSeed .. firstSeed + seeds - 1. */
  readonly seeds: number;
  /** Seeds run: up to the violating one, or fewer when a limit stopped the swarm. */
  readonly seedsRun: number;
  readonly violatingSeed?: number;
}

export function swarm(
  model: AnyModel,
  options: SimulationOptions & { readonly seeds: number },
): SearchResult & { readonly swarm: SwarmSummary } {
  const started = performance.now();
  let statesGenerated = 0;
  let distinctStates = 0;
  let depth = 0;
  let last: SearchResult | undefined;
  let seedsRun = 0;
  for (let offset = 0; offset < options.seeds; offset++) {
    const seed = (options.seed + offset) >>> 0;
    const elapsed = (performance.now() - started) / 1000;
    const limit = options.timeLimitSeconds;
    if (limit !== undefined && elapsed >= limit) break;
    last = simulate(model, {
      ...options,
      seed,
      ...(limit !== undefined ? { timeLimitSeconds: limit - elapsed } : {}),
    });
    seedsRun++;
    statesGenerated += last.statesGenerated;
    // Distinct counts are per seed: the largest says how far one seed got.
    distinctStates = Math.max(distinctStates, last.distinctStates);
    depth = Math.max(depth, last.depth);
    if (last.result !== 'ok') break;
  }
  const violated = last?.result === 'violation';
  const summary: SwarmSummary = {
    firstSeed: options.seed,
    seeds: options.seeds,
    seedsRun,
    ...(violated ? { violatingSeed: (options.seed + seedsRun - 1) >>> 0 } : {}),
  };
  const stopped = seedsRun < options.seeds && !violated;
  return {
    result: violated ? 'violation' : stopped ? 'incomplete' : 'ok',
    ...(violated ? { invariant: last!.invariant!, path: last!.path! } : {}),
    ...(stopped ? { stoppedBy: last?.stoppedBy ?? 'time-limit' } : {}),
    distinctStates,
    statesGenerated,
    depth,
    seconds: (performance.now() - started) / 1000,
    exhaustive: false,
    swarm: summary,
  };
}

/** One seed's simulation, or a swarm of `seeds` seeds. */
export function simulateSeeds(
  model: AnyModel,
  options: SimulationOptions & { readonly seeds?: number },
): SearchResult {
  const seeds = options.seeds ?? 1;
  return seeds > 1 ? swarm(model, { ...options, seeds }) : simulate(model, options);
}
