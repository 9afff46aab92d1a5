/**
 * How long a moving shard cannot be served, against its size: the shard is filled with
 * `bytes` of values, then moved to another group (freeze at the source, install at the
 * destination, DESIGN §3) while a prober clerk reads one of its keys in a closed loop. The
 * unavailable time is the longest gap between two consecutive answered reads from just before
 * the move until it is published; `moveMs` is the move from request to publication. Beside
 * them, counted rather than timed (so they move less with the machine's load): the elections
 * the replica groups held during the move and how much their logs grew, which a move that
 * appends its image more than once per replica shows (docs/benchmarks.md, the 10 MiB move).
 */
import { performance } from 'node:perf_hooks';
import { electionsBetween, groupFacts, type LiveBytes } from './group-facts.js';
import { expectOk, type ShardkvCluster } from './shardkv.js';

export interface MoveFigures {
  readonly shardBytes: number;
  readonly moveMs: number;
  readonly unavailableMs: number;
  /** Elections in the replica groups from the move's request to its publication. */
  readonly elections: number;
  /** The growth of the group servers' logs over the same time, summed over every replica. */
  readonly logGrowthBytes: number;
}

const movedShard = 0;
/** A key of shard 0: key2shard is the first byte mod 10 and 'd' is 100 (CONTRACT). */
const keyOfMovedShard = (suffix: string) => `d${suffix}`;
export const fillValueBytes = 256 * 1024;

/** `live` counts the keys and values the fill and the probe write. */
export async function measureMove(
  cluster: ShardkvCluster, shardBytes: number, live: LiveBytes,
): Promise<MoveFigures> {
  const [writer, prober] = await cluster.clerks(2);
  const { clerk } = writer!;
  const values = Math.ceil(shardBytes / fillValueBytes);
  for (let index = 0; index < values; index++) {
    const value = String.fromCharCode(97 + (index % 26)).repeat(fillValueBytes);
    const key = keyOfMovedShard(`fill-${shardBytes}-${index}`);
    expectOk(await clerk.put(key, value, writer!.deadline(60)), 'fill');
    live.put(key, fillValueBytes);
  }
  const probeValue = 'here';
  expectOk(await clerk.put(keyOfMovedShard('probe'), probeValue, writer!.deadline(60)), 'probe');
  live.put(keyOfMovedShard('probe'), probeValue.length);
  const admin = cluster.admin;
  const latest = expectOk(await admin.clerk.query(-1, admin.deadline(30)), 'query').config;
  const owner = latest.shards[movedShard]!;
  const target = cluster.gids.find((gid) => gid !== owner)!;
  const answered: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const outcome = await prober!.clerk.get(keyOfMovedShard('probe'), prober!.deadline(60));
      if (outcome.status === 'ok') answered.push(performance.now());
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const factsBefore = await groupFacts(cluster.cluster);
  const began = performance.now();
  const moved = expectOk(await admin.clerk.move(movedShard, target, admin.deadline(120)),
    'move');
  expectOk(await admin.clerk.waitPublished(moved.num, admin.deadline(120)), 'publish');
  const published = performance.now();
  const factsAfter = await groupFacts(cluster.cluster);
  // Reads answered after publication close the gap (the new owner serves the shard).
  while (answered.filter((time) => time > published).length < 2) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  probing = false;
  await probe;
  const window = answered.filter((time) => time >= began - 200);
  let gapMs = 0;
  for (let index = 1; index < window.length; index++) {
    gapMs = Math.max(gapMs, window[index]! - window[index - 1]!);
  }
  return {
    shardBytes, moveMs: published - began, unavailableMs: gapMs,
    elections: electionsBetween(factsBefore, factsAfter),
    logGrowthBytes: factsAfter.logBytes - factsBefore.logBytes,
  };
}
