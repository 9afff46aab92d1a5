/**
 * The migration driver as one step function (DESIGN §2's actor shape), for the runtime: it
 * runs at the controller group's leader. Given the controller state (as applied so far), the
 * driver's volatile beliefs and one input, it returns the new beliefs, the commands to send to
 * groups, and the commands to propose to the controller's own log (plan, publish). The runtime
 * performs them and decides nothing: which step comes next is decided here, by the functions
 * of driver.ts and recovery.ts, the very ones the `migration` model checks.
 *
 * Inputs: `start` when the replica becomes leader (or the driver restarts): beliefs are
 * rebuilt from `next` and the groups' facts only, so every moved shard first asks src and dst
 * for their facts (two query-shard commands; the runtime passes both answers back together as
 * one `facts` input). `tick` on the retry timer: the commands the beliefs call for, again
 * (every command is idempotent at the groups). `reply` a group's result for a command sent.
 * `applied` after the controller applied a plan or a publish.
 */
import type {
  ControllerCommand,
  ControllerCommandResult,
  ControllerState,
} from '../controller/state-machine.js';
import { unassignedGid } from '../controller/types.js';
import type { GroupCommand, GroupResult, ShardFacts } from '../group/types.js';
import { noMigrationBugs, type MigrationBugs } from './bugs.js';
import { driverSends, handleReply, moveIndex, readyToPublish } from './driver.js';
import { recoverShard, restartDriver } from './recovery.js';
import type { DriverState, Send } from './types.js';

export type DriverInput =
  | { readonly type: 'start' }
  | { readonly type: 'tick' }
  | { readonly type: 'reply'; readonly command: GroupCommand; readonly result: GroupResult }
  | {
      readonly type: 'facts';
      readonly shard: number;
      /** null when the move's src (dst) is 0. */
      readonly src: ShardFacts | null;
      readonly dst: ShardFacts | null;
    }
  | { readonly type: 'applied'; readonly result: ControllerCommandResult };

export interface DriverStep {
  readonly driver: DriverState;
  /** Commands for groups, in order; resend on `tick` until a reply moves the driver on. */
  readonly sends: readonly Send[];
  /** Commands for the controller's log (plan, publish), to be proposed by this leader. */
  readonly proposals: readonly ControllerCommand[];
}

/** A step with nothing to do. */
const idle = (driver: DriverState): DriverStep => ({ driver, sends: [], proposals: [] });

/**
 * What the beliefs call for now, for the moved shards `only` (all when undefined): each
 * shard's command (two facts queries while it recovers), then the plan or the publish.
 */
function pending(
  controller: ControllerState,
  driver: DriverState,
  bugs: MigrationBugs,
  only?: number,
): DriverStep {
  const sends: Send[] = [];
  const proposals: ControllerCommand[] = [];
  const next = controller.next;
  if (next === null) {
    const target = controller.current + 1;
    if (target < controller.configs.length) proposals.push({ type: 'plan', num: target });
    return { driver, sends, proposals };
  }
  next.moves.forEach((identity, index) => {
    if (only !== undefined && index !== only) return;
    if (driver.progress[index]?.step !== 'recover') {
      sends.push(...driverSends(controller, driver, index, bugs));
      return;
    }
    const shard = identity.shard;
    for (const gid of [identity.src, identity.dst]) {
      if (gid !== unassignedGid) sends.push({ to: gid, command: { type: 'query-shard', shard } });
    }
  });
  if (readyToPublish(controller, driver)) proposals.push({ type: 'publish', num: next.num });
  return { driver, sends, proposals };
}

export function stepDriver(
  controller: ControllerState,
  driver: DriverState,
  input: DriverInput,
  bugs: MigrationBugs = noMigrationBugs,
): DriverStep {
  // Beliefs are about one intent. On start, or when the controller's `next` is another one (a
  // plan recorded since, possibly proposed by an older leader that took steps already; or a
  // publish), they are rebuilt from `next` and the groups' facts, never kept.
  const current = input.type !== 'start' && driver.num === (controller.next?.num ?? null);
  const beliefs = current ? driver : restartDriver(controller);
  switch (input.type) {
    case 'start':
    case 'tick':
    case 'applied':
      return pending(controller, beliefs, bugs);
    case 'reply': {
      const command = input.command;
      const index = 'identity' in command ? moveIndex(controller, command.identity.shard) : -1;
      if (!current) return pending(controller, beliefs, bugs);
      const moved = index < 0 ? beliefs : handleReply(controller, beliefs, index, input.result);
      // A reply that moves nothing on (late, duplicated, an error) calls for no new command.
      return moved === beliefs ? idle(beliefs) : pending(controller, moved, bugs, index);
    }
    case 'facts': {
      if (!current) return pending(controller, beliefs, bugs);
      const index = moveIndex(controller, input.shard);
      const recovered = recoverShard(controller, beliefs, index, input.src, input.dst, bugs);
      if (recovered === null) return idle(beliefs);
      const step = pending(controller, recovered.driver, bugs, index);
      return { ...step, sends: [...recovered.sends, ...step.sends] };
    }
  }
}
