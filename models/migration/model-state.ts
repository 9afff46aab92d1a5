/**
 * The `migration` model's state (DESIGN §3's table): the controller with its persisted
 * intent, the driver's volatile beliefs, G replica groups as atomic replicated state
 * machines, C clients with a fixed script of operations, the network's in-flight copies of
 * messages, the fault budgets, and proof-only history variables that the invariants read.
 */
import { assert } from '../../spec/assert.js';
import { bugSwitches, switchesOf } from '../../spec/bug-catalog.js';
import { controllerBugNames, type ControllerBugs } from '../../spec/controller/bugs.js';
import { joinConfig } from '../../spec/controller/operations.js';
import {
  applyControllerCommand,
  initialControllerState,
  type ControllerState,
} from '../../spec/controller/state-machine.js';
import type { Gid } from '../../spec/controller/types.js';
import { emptyGroup } from '../../spec/group/group.js';
import { applyGroupCommand } from '../../spec/group/state-machine.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';
import type {
  ClientOperation, ClientRequest, GroupCommand, GroupState,
} from '../../spec/group/types.js';
import {
  migrationBugs,
  migrationSwitchNames,
  noMigrationBugs,
  type MigrationBugName,
  type MigrationBugs,
} from '../../spec/migration/bugs.js';
import { stepDriver, type DriverInput } from '../../spec/migration/driver-step.js';
import { idleDriver, type DriverState } from '../../spec/migration/types.js';
import type { ClientState as ClientActor } from '../../spec/client/types.js';
import { startClient } from './model-clients.js';

export interface MigrationBounds {
  readonly groups: number;
  readonly shards: number;
  readonly clients: number;
  /** Operations in each client's script. */
  readonly ops: number;
  /** Admin joins, leaves and moves after the initial configuration. */
  readonly maxReconfigs: number;
  readonly maxCrashes: number;
  /** Messages the network may duplicate (each copy is delivered late, at most once). */
  readonly maxDuplicates: number;
  /** Session expiries (each raises one group's session floor by one client). */
  readonly maxExpiries: number;
  /**
   * Clients that reuse the sequence number of their outstanding request for another request
   * (a client restarted without its request: first "add 5", then "add 6" under one seq).
   */
  readonly maxReuses: number;
  /** The driver's image part budget (image-parts.ts weights): an image larger travels in parts. */
  readonly partBytes: number;
}

/**
 * A client of the model: spec/client's actor (model-clients.ts runs it) on a fixed script.
 * The actor routes by the latest configuration it learned (CONTRACT's `ctl query`: published
 * or not), so it may reach a new owner before the move is published.
 */
export interface ClientState {
  readonly actor: ClientActor;
  /** How many operations of its script were acknowledged. */
  readonly done: number;
  /** The results the client received, one per acknowledged operation. */
  readonly results: readonly string[];
  /** The seq whose request the client replaced by another under the same seq, or -1. */
  readonly reusedSeq: number;
}

/** A copy of a message that the network delivers late (model-actions.ts: who takes its reply). */
export interface InFlight {
  readonly to: Gid;
  readonly command: GroupCommand;
}

/**
 * Proof-only history variables: never read by the protocol, only by invariants. Each flag
 * records what one step did that no later state could show (as the controller model keeps
 * its step measurements).
 */
export interface History {
  /**
   * applied[c * ops + i]: how often client c's request i, a write, took effect (capped at 2;
   * a get takes no effect, so its slot stays 0).
   */
  readonly applied: readonly number[];
  /** first[c * ops + i]: the result of its first effect ('' for ok), or null. */
  readonly first: readonly (string | null)[];
  /** firstReused[c * ops + i]: that first effect was the client's replacement request. */
  readonly firstReused: readonly boolean[];
  /**
   * ghost[s]: the value of shard s's key under the writes that took effect, applied in the
   * order they took effect (each write has a letter of its own, so the value shows the
   * order of the appends since the last put).
   */
  readonly ghost: readonly string[];
  /** Some Get's answer was another value than ghost's at that point. */
  readonly staleRead: boolean;
  /** Some client request was answered by a copy that was not serving (frozen or deleted). */
  readonly unservedAnswer: boolean;
}

export interface MigrationState {
  readonly controller: ControllerState;
  readonly driver: DriverState;
  /** groups[gid - 1]. */
  readonly groups: readonly GroupState[];
  readonly clients: readonly ClientState[];
  /** Sorted by their JSON text, so that equal multisets are equal states. */
  readonly network: readonly InFlight[];
  readonly crashes: number;
  readonly duplicates: number;
  readonly expiries: number;
  readonly history: History;
}

export const maximumOps = 3;

/** The model's bug switches: the controller's and the groups' and driver's records. */
export interface ModelBugs {
  readonly controller: ControllerBugs;
  readonly migration: MigrationBugs;
}

/** The records with the switch `bug` on, and those of its context (none without one). */
export function modelBugs(bug: MigrationBugName | undefined): ModelBugs {
  const on = switchesOf(migrationBugs, bug);
  return {
    controller: bugSwitches(controllerBugNames, on),
    migration: bugSwitches(migrationSwitchNames, on),
  };
}

/** The servers of group `gid` in a configuration (CONTRACT: node names g<gid>-0..). */
export function serversOf(gid: Gid): string[] {
  return [`g${gid}-0`];
}

/** The one key the model uses in shard `shard`: a lowercase letter with key2shard = shard. */
export function keyOf(shard: number, shardCount: number): string {
  return String.fromCharCode(shardCount * Math.ceil(97 / shardCount) + shard);
}

const operations: readonly ClientOperation[] = ['append', 'get', 'put'];

/** The shard of client c's request number `seq`: every client walks the shards in order. */
export const scriptShard = (bounds: MigrationBounds, seq: number) => seq % bounds.shards;

/**
 * Client c's request number `seq` (its script is fixed, so states stay small): shard
 * seq mod S, so the clients meet on every shard; operations append, get, put in turn, client
 * c starting at the (2c)-th, so that with two clients and two operations each a put and an
 * append race on shard 0 and a get and an append on shard 1. Each write has a letter of its
 * own. `reused`: the request the client sends instead under the same seq (an append of the
 * lowercase letter), after a restart that lost the first one.
 */
export function scriptRequest(
  bounds: MigrationBounds,
  client: number,
  seq: number,
  reused = false,
): ClientRequest {
  assert(seq < bounds.ops, `client ${client} has no request ${seq}`);
  const letter = String.fromCharCode(65 + client * maximumOps + seq);
  const key = keyOf(scriptShard(bounds, seq), bounds.shards);
  if (reused) return { client, seq, op: 'append', key, value: letter.toLowerCase() };
  const op = operations[(seq + 2 * client) % operations.length]!;
  return { client, seq, op, key, value: op === 'get' ? '' : letter };
}

/** Driver inputs the setup of configuration 1 may take before it is a runaway (bounded). */
const setupInputsMax = 100;

/**
 * The driver (stepDriver) at a controller and groups where every command is delivered and
 * answered and every proposal applies at once, until it asks for nothing more.
 */
function settleDriver(
  start: ControllerState,
  groups: GroupState[],
): { controller: ControllerState; driver: DriverState } {
  let controller = start;
  let driver: DriverState = idleDriver;
  const inputs: DriverInput[] = [{ type: 'start' }];
  for (let index = 0; index < inputs.length; index++) {
    assert(index < setupInputsMax, 'configuration 1 does not settle');
    const step = stepDriver(controller, driver, inputs[index]!);
    driver = step.driver;
    for (const send of step.sends) {
      const applied = applyGroupCommand(groups[send.to - 1]!, send.command, noMigrationBugs,
        unboundedSizes);
      groups[send.to - 1] = applied.state;
      inputs.push({ type: 'reply', from: send.to, command: send.command, result: applied.result });
    }
    for (const proposal of step.proposals) {
      const applied = applyControllerCommand(controller, proposal);
      controller = applied.state;
      inputs.push({ type: 'applied', result: applied.result });
    }
  }
  assert(controller.next === null, 'configuration 1 is not published');
  return { controller, driver };
}

/**
 * Configuration 0, then configuration 1 = join(g1), migrated and published by the driver
 * itself (every shard moves from gid 0 to g1, with an empty image): no group is special.
 */
export function initialState(bounds: MigrationBounds): MigrationState {
  let zero = initialControllerState(bounds.shards);
  // The clients' session ids 0..clients-1, issued through the controller's log.
  for (let client = 0; client < bounds.clients; client++) {
    zero = applyControllerCommand(zero, { type: 'register-client' }).state;
  }
  const one = joinConfig(zero.configs[0]!, { 1: serversOf(1) });
  assert(one.ok, 'join of group 1 is refused');
  const recorded: ControllerState = { ...zero, configs: [...zero.configs, one.value] };
  const groups: GroupState[] = [];
  for (let gid = 1; gid <= bounds.groups; gid++) groups.push(emptyGroup(gid, bounds.shards));
  const { controller, driver } = settleDriver(recorded, groups);
  assert(controller.current === 1, 'configuration 1 is not the published one');
  const requests = bounds.clients * bounds.ops;
  return {
    controller,
    driver,
    groups,
    clients: Array.from({ length: bounds.clients },
      (_, client) => startClient(bounds, client, controller.configs[1]!)),
    network: [],
    crashes: 0,
    duplicates: 0,
    expiries: 0,
    history: {
      applied: Array<number>(requests).fill(0),
      first: Array<string | null>(requests).fill(null),
      firstReused: Array<boolean>(requests).fill(false),
      ghost: Array<string>(bounds.shards).fill(''),
      staleRead: false,
      unservedAnswer: false,
    },
  };
}
