// A tiny reliable world for scenario tests: the driver's commands are delivered at once and
// every reply arrives, unless a test drops or repeats one on purpose.
import { initialConfig, joinConfig } from '../../spec/controller/index.js';
import type { Config } from '../../spec/controller/types.js';
import {
  driverSends,
  handleReply,
  planNext,
  publishNext,
  recoverShard,
  type ControllerState,
  type DriverState,
  type Send,
} from '../../spec/migration/index.js';
import {
  applyCommand,
  emptyGroup,
  queryShard,
  type GroupResult,
  type GroupState,
  type ShardFacts,
} from '../../spec/group/index.js';

export interface World {
  readonly controller: ControllerState;
  readonly driver: DriverState;
  /** groups[gid - 1] */
  readonly groups: readonly GroupState[];
}

export function deliver(world: World, send: Send): { world: World; result: GroupResult } {
  const groups = world.groups.slice();
  const applied = applyCommand(groups[send.to - 1]!, send.command);
  groups[send.to - 1] = applied.state;
  return { world: { ...world, groups }, result: applied.result };
}

function factsOf(world: World, gid: number, shard: number): ShardFacts {
  const result = queryShard(world.groups[gid - 1]!, shard).result;
  if (result.type !== 'facts') throw new Error('no facts');
  return result.facts;
}

/** One driver step for move `index`: recovery from facts, or a command and its reply. */
export function step(world: World, index: number): World {
  const identity = world.controller.next!.moves[index]!;
  if (world.driver.progress[index]!.step === 'recover') {
    const srcFacts = identity.src === 0 ? null : factsOf(world, identity.src, identity.shard);
    const recovered = recoverShard(world.controller, world.driver, index, srcFacts,
      factsOf(world, identity.dst, identity.shard));
    if (recovered === null) throw new Error('recovery not enabled');
    return { ...world, driver: recovered.driver };
  }
  const [send] = driverSends(world.controller, world.driver, index);
  if (send === undefined) return world;
  const delivered = deliver(world, send);
  const driver = handleReply(world.controller, world.driver, index, delivered.result);
  return { ...delivered.world, driver };
}

export function plan(world: World): World {
  const planned = planNext(world.controller);
  if (planned === null) throw new Error('nothing to plan');
  return { ...world, ...planned };
}

export function publish(world: World): World {
  const published = publishNext(world.controller, world.driver);
  if (published === null) throw new Error('not ready to publish');
  return { ...world, ...published };
}

/** Drives every moved shard to done (at most 8 steps each), then publishes. */
export function driveToPublish(world: World): World {
  let current = world;
  for (let round = 0; round < 8; round++) {
    current.driver.progress.forEach((_, index) => {
      current = step(current, index);
    });
  }
  return publish(current);
}

/** Configurations 0 and 1 = join(g1) published: g1 serves every shard; g2..gG are empty. */
export function startWorld(groupCount: number, shardCount: number): World {
  const zero = initialConfig(shardCount);
  const one = joinConfig(zero, { 1: ['g1-0'] });
  if (!one.ok) throw new Error(one.error);
  const groups: GroupState[] = [];
  for (let gid = 1; gid <= groupCount; gid++) groups.push(emptyGroup(gid, shardCount));
  const controller = { configs: [zero, one.value], current: 0, next: null };
  const world: World = { controller, driver: { progress: [] }, groups };
  return driveToPublish(plan(world));
}

export function recordConfig(world: World, config: Config): World {
  const configs = [...world.controller.configs, config];
  return { ...world, controller: { ...world.controller, configs } };
}
