/**
 * `npm run bench -- group`: what one put costs the group state machine (applyGroupCommand,
 * dedup included) in a shard of 1,000 and of 100,000 keys, with the runtime's persistent
 * B-tree maps; the bar is the second at most 2x the first. The model's sorted arrays
 * are shown beside them for scale (O(n) per put: a copy of the shard).
 */
import {
  absentShard,
  applyGroupCommand,
  BTreeMap,
  emptyGroup,
  sortedArrayMaps,
  withShard,
  type EmptyMaps,
  type GroupState,
} from '../spec/group/index.js';
import { unboundedSizes } from '../spec/group/size-policy.js';
import { noMigrationBugs } from '../spec/migration/bugs.js';
import type { BenchSection } from './sections.js';

/** One serving shard holding `keys` keys (k0, k1, ...), filled through apply itself. */
function filledGroup(maps: EmptyMaps, keys: number): GroupState {
  let group = withShard(emptyGroup(1, 1, maps), 0, { ...absentShard(maps), phase: 'serving' });
  for (let index = 0; index < keys; index++) {
    const request = { client: index, seq: 0, op: 'put', key: `k${index}`, value: 'v' } as const;
    const command = { type: 'client', request } as const;
    group = applyGroupCommand(group, command, noMigrationBugs, unboundedSizes).state;
  }
  return group;
}

/** Nanoseconds per put of a fresh key by one client, each put applied to the state before. */
function putCost(group: GroupState, puts: number): number {
  let state = group;
  const start = performance.now();
  for (let seq = 0; seq < puts; seq++) {
    const request = { client: 0, seq: seq + 1, op: 'put', key: `n${seq}`, value: 'w' } as const;
    const applied = applyGroupCommand(state, { type: 'client', request }, noMigrationBugs,
      unboundedSizes);
    if (applied.result.type !== 'ok') throw new Error(`put refused: ${applied.result.type}`);
    state = applied.state;
  }
  return ((performance.now() - start) * 1e6) / puts;
}

async function run(): Promise<void> {
  const runtimeMaps: EmptyMaps = { kv: BTreeMap.empty(), dedup: BTreeMap.empty() };
  const costs: number[] = [];
  for (const keys of [1_000, 100_000]) {
    const group = filledGroup(runtimeMaps, keys);
    putCost(group, 2_000); // warm-up
    const cost = putCost(group, 20_000);
    costs.push(cost);
    console.log(`apply put, B-tree maps, shard of ${keys} keys: ${Math.round(cost)} ns`);
  }
  console.log(`ratio 100,000 / 1,000 keys: ${(costs[1]! / costs[0]!).toFixed(2)}x (bar: <= 2x)`);
  for (const keys of [1_000, 10_000]) {
    const cost = putCost(filledGroup(sortedArrayMaps, keys), 2_000);
    const label = `apply put, sorted arrays (the model's), shard of ${keys} keys`;
    console.log(`${label}: ${Math.round(cost)} ns`);
  }
}

export const groupBench: BenchSection = {
  name: 'group',
  description: 'apply cost of a put into a shard of 1,000 and of 100,000 keys',
  run,
};
