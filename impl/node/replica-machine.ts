/**
 * The state machine a replica applies committed commands to: the controller's
 * (spec/controller/state-machine.ts) or one group's (spec/group/state-machine.ts, over B+ tree
 * maps). Each turns a command into the reply its proposer gets; neither decides anything.
 */
import {
  applyControllerCommand, initialControllerState, publishesConfig, type ControllerCommand,
  type ControllerCommandResult, type ControllerState,
} from '../../spec/controller/state-machine.js';
import { noControllerBugs, type ControllerBugs } from '../../spec/controller/bugs.js';
import { assert } from '../../spec/assert.js';
import { BTreeMap } from '../../spec/group/btree-map.js';
import { emptyGroup, type EmptyMaps } from '../../spec/group/group.js';
import { applyGroupCommand, servedShards } from '../../spec/group/state-machine.js';
import { applyClientRequest } from '../../spec/group/client-requests.js';
import type { SizeLimits } from '../../spec/group/size-policy.js';
import type {
  ClientRequest, GroupCommand, GroupResult, GroupState,
} from '../../spec/group/types.js';
import { noMigrationBugs, type MigrationBugs } from '../../spec/migration/bugs.js';
import type { ReplyBody } from './wire.js';

/** The runtime's maps: B+ trees, so a put into a large shard copies O(log n) nodes. */
export const btreeMaps: EmptyMaps = { kv: BTreeMap.empty(), dedup: BTreeMap.empty() };

export interface ControllerMachine {
  readonly kind: 'controller';
  state: ControllerState;
  apply(command: unknown): { reply: ReplyBody; result: ControllerCommandResult };
}

export interface GroupMachine {
  readonly kind: 'group';
  readonly gid: number;
  state: GroupState;
  apply(command: unknown): { reply: ReplyBody; result: GroupResult };
  /**
   * The answer a get would have from the log applied at this point: applyClientRequest's
   * result (a get changes no state, not even a dedup record).
   */
  read(request: ClientRequest): ReplyBody;
}

export type ReplicaMachine = ControllerMachine | GroupMachine;

export function controllerMachine(
  shardCount: number,
  bugs: Partial<ControllerBugs> = {},
): ControllerMachine {
  const allBugs = { ...noControllerBugs, ...bugs };
  const machine: ControllerMachine = {
    kind: 'controller',
    state: initialControllerState(shardCount),
    apply(command) {
      const applied = applyControllerCommand(machine.state, command as ControllerCommand, allBugs);
      machine.state = applied.state;
      const result = applied.result;
      const published = publishesConfig(applied.state, result);
      return { reply: { type: 'controller-result', result, published }, result };
    },
  };
  return machine;
}

/** `limits`: the cluster's size policy (every replica of the cluster applies the same). */
export function groupMachine(
  gid: number,
  shardCount: number,
  limits: SizeLimits,
  bugs: Partial<MigrationBugs> = {},
): GroupMachine {
  const allBugs = { ...noMigrationBugs, ...bugs };
  const machine: GroupMachine = {
    kind: 'group',
    gid,
    state: emptyGroup(gid, shardCount, btreeMaps),
    apply(command) {
      const applied = applyGroupCommand(machine.state, command as GroupCommand, allBugs, limits);
      machine.state = applied.state;
      return { reply: { type: 'group-result', result: applied.result }, result: applied.result };
    },
    read(request) {
      assert(request.op === 'get', `a read is a get, not a ${request.op}`);
      const applied = applyClientRequest(machine.state, request, allBugs, limits);
      assert(applied.state === machine.state, 'a get changed the group state');
      return { type: 'group-result', result: applied.result };
    },
  };
  return machine;
}

/** The shards a replica's applied state serves ([] for the controller). */
export function machineShards(machine: ReplicaMachine): number[] {
  return machine.kind === 'group' ? servedShards(machine.state) : [];
}
