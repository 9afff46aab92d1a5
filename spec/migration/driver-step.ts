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

/** What the beliefs call for now: every moved shard's command, or the plan or the publish. */
function pending(controller: ControllerState, driver: DriverState, bugs: MigrationBugs) {
  const sends: Send[] = [];
  const proposals: ControllerCommand[] = [];
  const next = controller.next;
  if (next === null) {
    const target = controller.current + 1;
    if (target < controller.configs.length) proposals.push({ type: 'plan', num: target });
    return { driver, sends, proposals };
  }
  next.moves.forEach((identity, index) => {
    if (driver.progress[index]?.step === 'recover') {
      const shard = identity.shard;
      if (identity.src !== unassignedGid) {
        sends.push({ to: identity.src, command: { type: 'query-shard', shard } });
      }
      if (identity.dst !== unassignedGid) {
        sends.push({ to: identity.dst, command: { type: 'query-shard', shard } });
      }
    } else {
      sends.push(...driverSends(controller, driver, index, bugs));
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
  switch (input.type) {
    case 'start':
      return pending(controller, restartDriver(controller), bugs);
    case 'tick':
      return pending(controller, driver, bugs);
    case 'applied':
      // A newly recorded plan is recovered from the facts, like after a restart: an older
      // leader may have proposed it and taken steps already. A repeat keeps the beliefs.
      if (input.result.type === 'planned' && driver.progress.length === 0) {
        return pending(controller, restartDriver(controller), bugs);
      }
      if (input.result.type === 'published') return pending(controller, { progress: [] }, bugs);
      return pending(controller, driver, bugs);
    case 'reply':
      return afterReply(controller, driver, input.command, input.result, bugs);
    case 'facts': {
      const index = moveIndex(controller, input.shard);
      const recovered = recoverShard(controller, driver, index, input.src, input.dst, bugs);
      if (recovered === null) return { driver, sends: [], proposals: [] };
      const step = pending(controller, recovered.driver, bugs);
      return { ...step, sends: [...recovered.sends, ...step.sends] };
    }
  }
}

function afterReply(
  controller: ControllerState,
  driver: DriverState,
  command: GroupCommand,
  result: GroupResult,
  bugs: MigrationBugs,
): DriverStep {
  if (!('identity' in command)) return { driver, sends: [], proposals: [] };
  const index = moveIndex(controller, command.identity.shard);
  const moved = index < 0 ? driver : handleReply(controller, driver, index, result);
  if (moved === driver) return { driver, sends: [], proposals: [] };
  return pending(controller, moved, bugs);
}
