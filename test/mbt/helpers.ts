// Runs `shardkv mbt`'s core on a model at given bounds, as the CLI does.
import { resolveParams } from '../../checker/params.js';
import type { Path } from '../../checker/search.js';
import type { ShellFaults } from '../../impl/node/shell-faults.js';
import { findModel } from '../../models/registry.js';
import { runMbt, undrivenActions, type MbtOutcome, type MbtTarget } from '../../verify/mbt/mbt.js';
import { drivableBy, randomWalks, shortestPaths } from '../../verify/mbt/schedules.js';

export function target(
  name: string,
  bounds: Readonly<Record<string, string>> = {},
  faults: Partial<ShellFaults> = {},
): MbtTarget {
  const definition = findModel(name)!;
  const params = resolveParams(definition, undefined, bounds);
  return { name, params, model: definition.create(params, undefined), faults };
}

export function walks(
  on: MbtTarget,
  options: { walks: number; depth: number; seed: number },
): Iterable<Path> {
  return randomWalks(on.model, drivableBy(undrivenActions(on)), options);
}

export function paths(on: MbtTarget, count: number): Iterable<Path> {
  return shortestPaths(on.model, drivableBy(undrivenActions(on)), count);
}

export function run(on: MbtTarget, schedules: Iterable<Path>): Promise<MbtOutcome> {
  return runMbt(on, schedules);
}
