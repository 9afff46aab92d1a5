/**
 * The `migration` model's state (DESIGN §3's table): the controller with its persisted
 * intent, the driver's volatile beliefs, G replica groups as atomic replicated state
 * machines, C clients with a fixed script of operations, the network's in-flight copies of
 * messages, the fault budgets, and proof-only history variables that the invariants read.
 */
import { assert } from '../assert.js';
import { noControllerBugs, type ControllerBugs } from '../controller/bugs.js';
import { joinConfig } from '../controller/operations.js';
import {
  applyControllerCommand,
  initialControllerState,
  type ControllerState,
} from '../controller/state-machine.js';
import type { Gid } from '../controller/types.js';
import { emptyGroup } from '../group/group.js';
import { applyGroupCommand } from '../group/state-machine.js';
import type { ClientOperation, ClientRequest, GroupCommand, GroupState } from '../group/types.js';
import { noMigrationBugs, type MigrationBugName, type MigrationBugs } from './bugs.js';
import { driverSends, freshDriver, handleReply } from './driver.js';
import { idleDriver, type DriverState } from './types.js';

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
}

export interface ClientState {
  /** How many operations of its script were acknowledged. */
  readonly done: number;
  /** The configuration the client routes by (it learns only published ones). */
  readonly configNum: number;
  /** The results the client received, one per acknowledged operation. */
  readonly results: readonly string[];
}

/** A copy of a message that the network delivers late; its reply reaches the sender. */
export interface InFlight {
  readonly to: Gid;
  readonly command: GroupCommand;
}

/** Proof-only history variables: never read by the protocol, only by invariants. */
export interface History {
  /** applied[c * ops + i]: how often client c's request i took effect (capped at 2). */
  readonly applied: readonly number[];
  /** first[c * ops + i]: the result of its first effect, or null. */
  readonly first: readonly (string | null)[];
  /** ghost[s]: the value of shard s's key under the effects in the order they happened. */
  readonly ghost: readonly string[];
  /** Some migration message older than its recipient's epoch changed the recipient. */
  readonly staleChanged: boolean;
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

/** The records with the switch `bug` on (none without one). */
export function modelBugs(bug: MigrationBugName | undefined): ModelBugs {
  if (bug === undefined) return { controller: noControllerBugs, migration: noMigrationBugs };
  if (bug === 'skip-config') {
    return { controller: { ...noControllerBugs, [bug]: true }, migration: noMigrationBugs };
  }
  return { controller: noControllerBugs, migration: { ...noMigrationBugs, [bug]: true } };
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

/**
 * Client c's request number `seq` (its script is fixed, so states stay small): shard
 * (c + seq) mod S, operations append, get, put in turn, each write a letter of its own so
 * that every acknowledged write can be found in a value.
 */
export function scriptRequest(bounds: MigrationBounds, client: number, seq: number): ClientRequest {
  assert(seq < bounds.ops, `client ${client} has no request ${seq}`);
  const op = operations[seq % operations.length]!;
  const key = keyOf((client + seq) % bounds.shards, bounds.shards);
  const value = op === 'get' ? '' : String.fromCharCode(65 + client * maximumOps + seq);
  return { client, seq, op, key, value };
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
  const planned = applyControllerCommand(recorded, { type: 'plan', num: 1 });
  assert(planned.result.type === 'planned', 'configuration 1 cannot be planned');
  const controller = planned.state;
  let driver = freshDriver(controller);
  const groups: GroupState[] = [];
  for (let gid = 1; gid <= bounds.groups; gid++) groups.push(emptyGroup(gid, bounds.shards));
  driver.progress.forEach((_, index) => {
    const [send] = driverSends(controller, driver, index, noMigrationBugs);
    assert(send !== undefined && send.to === 1, 'configuration 1 installs at g1');
    const applied = applyGroupCommand(groups[0]!, send.command);
    groups[0] = applied.state;
    driver = handleReply(controller, driver, index, applied.result);
  });
  const published = applyControllerCommand(controller, { type: 'publish', num: 1 });
  assert(published.result.type === 'published', 'configuration 1 cannot be published');
  const requests = bounds.clients * bounds.ops;
  return {
    controller: published.state,
    driver: idleDriver,
    groups,
    clients: Array.from({ length: bounds.clients }, () => ({ done: 0, configNum: 1, results: [] })),
    network: [],
    crashes: 0,
    duplicates: 0,
    expiries: 0,
    history: {
      applied: Array<number>(requests).fill(0),
      first: Array<string | null>(requests).fill(null),
      ghost: Array<string>(bounds.shards).fill(''),
      staleChanged: false,
    },
  };
}
