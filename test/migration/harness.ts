// A tiny reliable world for scenario tests: the driver's commands are delivered at once and
// every reply arrives, unless a test drops or repeats one on purpose. The controller is the
// controller state machine itself: plan and publish are its commands.
import {
  applyControllerCommand,
  applyOperation,
  initialControllerState,
  type ControllerOperation,
  type ControllerState,
} from '../../spec/controller/index.js';
import type { Config } from '../../spec/controller/types.js';
import {
  driverSends,
  freshDriver,
  idleDriver,
  handleReply,
  noMigrationBugs,
  readyToPublish,
  recoverShard,
  type DriverState,
  type Send,
} from '../../spec/migration/index.js';
import {
  applyGroupCommand,
  emptyGroup,
  queryShard,
  type EmptyMaps,
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
  const applied = applyGroupCommand(groups[send.to - 1]!, send.command);
  groups[send.to - 1] = applied.state;
  return { world: { ...world, groups }, result: applied.result };
}

export function factsOf(world: World, gid: number, shard: number): ShardFacts | null {
  if (gid === 0) return null;
  const result = queryShard(world.groups[gid - 1]!, shard).result;
  if (result.type !== 'facts') throw new Error('no facts');
  return result.facts;
}

/** One driver step for move `index`: recovery from facts, or a command and its reply. */
export function step(world: World, index: number): World {
  const identity = world.controller.next!.moves[index]!;
  if (world.driver.progress[index]!.step === 'recover') {
    const recovered = recoverShard(world.controller, world.driver, index,
      factsOf(world, identity.src, identity.shard), factsOf(world, identity.dst, identity.shard),
      noMigrationBugs);
    if (recovered === null) throw new Error('recovery not enabled');
    return { ...world, driver: recovered.driver };
  }
  const [send] = driverSends(world.controller, world.driver, index, noMigrationBugs);
  if (send === undefined) return world;
  const delivered = deliver(world, send);
  const driver = handleReply(world.controller, world.driver, index, delivered.result);
  return { ...delivered.world, driver };
}

export function plan(world: World): World {
  const command = { type: 'plan', num: world.controller.current + 1 } as const;
  const planned = applyControllerCommand(world.controller, command);
  if (planned.result.type !== 'planned') throw new Error(`nothing to plan: ${planned.result.type}`);
  return { ...world, controller: planned.state, driver: freshDriver(planned.state) };
}

export function publish(world: World): World {
  const next = world.controller.next;
  if (next === null || !readyToPublish(world.controller, world.driver)) {
    throw new Error('not ready to publish');
  }
  const published = applyControllerCommand(world.controller, { type: 'publish', num: next.num });
  return { ...world, controller: published.state, driver: idleDriver };
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
export function startWorld(groupCount: number, shardCount: number, maps?: EmptyMaps): World {
  const groups: GroupState[] = [];
  for (let gid = 1; gid <= groupCount; gid++) groups.push(emptyGroup(gid, shardCount, maps));
  const world: World = {
    controller: initialControllerState(shardCount),
    driver: idleDriver,
    groups,
  };
  return driveToPublish(plan(admin(world, { type: 'join', groups: { 1: ['g1-0'] } })));
}

/** An admin operation recorded by the controller (no session: the tests' admin is one). */
export function admin(world: World, operation: ControllerOperation): World {
  const applied = applyOperation(world.controller, operation);
  if (applied.result.type === 'refused') throw new Error(applied.result.error);
  return { ...world, controller: applied.state };
}

export function recordConfig(world: World, config: Config): World {
  const configs = [...world.controller.configs, config];
  return { ...world, controller: { ...world.controller, configs } };
}

/** The entries of a map, as [key, value] pairs: what tests compare. */
export const entriesOf = <K, V>(map: { entries(): Iterable<readonly [K, V]> }) =>
  [...map.entries()].map(([key, value]) => [key, value]);
