// A tiny reliable world for scenario tests: the driver is stepDriver, its commands are
// delivered at once and every reply arrives, unless a test drops or repeats one on purpose.
// The controller is the controller state machine itself: plan and publish are its commands.
import { unboundedSizes } from '../../spec/group/size-policy.js';
import {
  applyControllerCommand,
  applyOperation,
  initialControllerState,
  type ControllerOperation,
  type ControllerState,
} from '../../spec/controller/index.js';
import type { Config } from '../../spec/controller/types.js';
import {
  idleDriver,
  noMigrationBugs,
  stepDriver,
  type DriverInput,
  type DriverState,
  type Send,
} from '../../spec/migration/index.js';
import {
  applyGroupCommand,
  emptyGroup,
  type EmptyMaps,
  type GroupResult,
  type GroupState,
} from '../../spec/group/index.js';

export interface World {
  readonly controller: ControllerState;
  readonly driver: DriverState;
  /** groups[gid - 1] */
  readonly groups: readonly GroupState[];
}

export function deliver(world: World, send: Send): { world: World; result: GroupResult } {
  const groups = world.groups.slice();
  const applied = applyGroupCommand(groups[send.to - 1]!, send.command, noMigrationBugs,
    unboundedSizes);
  groups[send.to - 1] = applied.state;
  return { world: { ...world, groups }, result: applied.result };
}

/** The driver takes one input; its sends and proposals are left to the caller. */
function input(world: World, driverInput: DriverInput) {
  const step = stepDriver(world.controller, world.driver, driverInput);
  return { world: { ...world, driver: step.driver }, step };
}

/** The commands the driver's beliefs call for now (its retry timer's), for `shard` only. */
function sendsFor(world: World, shard: number): Send[] {
  return input(world, { type: 'tick' }).step.sends.filter(({ command }) =>
    command.type === 'query-shard' ? command.shard === shard
      : 'identity' in command && command.identity.shard === shard);
}

/**
 * One driver step for move `index`: the commands it calls for now (one, or the facts queries
 * of a recovering shard) delivered, and each reply back to the driver.
 */
export function step(world: World, index: number): World {
  let current = world;
  for (const send of sendsFor(world, world.controller.next!.moves[index]!.shard)) {
    const delivered = deliver(current, send);
    const reply = { type: 'reply', from: send.to, command: send.command,
      result: delivered.result } as const;
    current = input(delivered.world, reply).world;
  }
  return current;
}

/** The driver's proposal of `type` applies; the driver learns it (`applied`). */
function applyProposal(world: World, type: 'plan' | 'publish'): World {
  const proposal = input(world, { type: 'tick' }).step.proposals.find(
    (command) => command.type === type);
  if (proposal === undefined) throw new Error(`the driver proposes no ${type}`);
  const applied = applyControllerCommand(world.controller, proposal);
  const recorded = { ...world, controller: applied.state };
  return input(recorded, { type: 'applied', result: applied.result }).world;
}

/** The plan applies, and the driver recovers every moved shard from its groups' facts. */
export function plan(world: World): World {
  if (world.controller.current + 1 >= world.controller.configs.length) {
    throw new Error('nothing to plan');
  }
  let planned = applyProposal(world, 'plan');
  planned.controller.next!.moves.forEach((_, index) => {
    planned = step(planned, index);
  });
  return planned;
}

export function publish(world: World): World {
  return applyProposal(world, 'publish');
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
