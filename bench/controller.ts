/** Controller figures: rebalance calls per second, and the default `controller` check. */
import { breadthFirstSearch } from '../checker/bfs.js';
import { resolveParams } from '../checker/params.js';
import { rebalance } from '../spec/controller/index.js';
import { controllerDefinition } from '../models/controller/index.js';
import type { BenchSection } from './sections.js';

/** A fixed, uneven starting assignment: shard s on gid (s * 7) mod (gids + 2), 0 included. */
function skewedShards(shardCount: number, gidCount: number): number[] {
  return Array.from({ length: shardCount }, (_, shard) => (shard * 7) % (gidCount + 2));
}

function rebalanceRate(shardCount: number, gidCount: number, calls: number): number {
  const shards = skewedShards(shardCount, gidCount);
  const gids = Array.from({ length: gidCount }, (_, index) => gidCount - index);
  let checksum = 0;
  const start = performance.now();
  for (let call = 0; call < calls; call++) checksum += rebalance(shards, gids)[call % shardCount]!;
  const seconds = (performance.now() - start) / 1000;
  if (checksum < 0) throw new Error('unreachable: gids are positive');
  return calls / seconds;
}

export const controllerSection: BenchSection = {
  name: 'controller',
  description: 'rebalance throughput and the default controller check',
  async run() {
    for (const [shardCount, gidCount] of [[10, 4], [64, 8], [64, 40]] as const) {
      const rate = rebalanceRate(shardCount, gidCount, 200_000);
      const perSecond = Math.round(rate);
      console.log(`rebalance ${shardCount} shards over ${gidCount} gids: ${perSecond} calls/s`);
    }
    // The definition's defaults, so the figure follows `shardkv check controller`.
    const params = resolveParams(controllerDefinition, undefined, {});
    const result = breadthFirstSearch(controllerDefinition.create(params, undefined));
    const perSecond = Math.round(result.statesGenerated / result.seconds);
    console.log(
      `check controller (gids ${params['gids']}, shards ${params['shards']}, ` +
        `ops ${params['ops']}, moves ${params['moves']}): ${result.result}, ` +
        `${result.distinctStates} distinct, ${result.statesGenerated} generated, ` +
        `${result.seconds.toFixed(1)} s, ${perSecond} generated/s`,
    );
  },
};
