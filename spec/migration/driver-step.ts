/**
 * The migration driver as one step function (DESIGN §2's actor shape): it runs at the
 * controller group's leader in the runtime (impl/node/driver-host.ts) and is the driver of the
 * checker's `migration` model, which feeds it the same inputs. Given the controller state (as
 * applied so far), the driver's volatile beliefs and one input, it returns the new beliefs,
 * the commands to send to groups, and the commands to propose to the controller's own log
 * (plan, publish). Its callers perform them and decide nothing: which step comes next is
 * decided here, by the functions of driver.ts and recovery.ts.
 *
 * Inputs: `start` when the replica becomes leader (or the driver restarts): beliefs are
 * rebuilt from `next` and the groups' facts only, so every moved shard first asks src and dst
 * for their facts (query-shard). `tick` on the retry timer: the commands the beliefs call for,
 * again (every command is idempotent at the groups). `reply` group `from`'s result for a
 * command sent, a facts answer included: the driver keeps each group's facts until both of a
 * shard's groups answered. `applied` after the controller applied a plan or a publish.
 */
import type {
  ControllerCommand,
  ControllerCommandResult,
  ControllerState,
} from '../controller/state-machine.js';
import type { Gid } from '../controller/types.js';
import type { GroupCommand, GroupResult } from '../group/types.js';
import { noMigrationBugs, type MigrationBugs } from './bugs.js';
import { defaultPartLimits, type PartLimits } from '../group/image-cut.js';
import { driverSends, handleReply, moveIndex, readyToPublish } from './driver.js';
import { factsSources, reportFacts, restartDriver } from './recovery.js';
import type { DriverState, Send } from './types.js';

export type DriverInput =
  | { readonly type: 'start' }
  | { readonly type: 'tick' }
  | {
      readonly type: 'reply';
      /** The group that answered (the one the command was sent to). */
      readonly from: Gid;
      readonly command: GroupCommand;
      readonly result: GroupResult;
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
 * shard's command (the facts queries of src and dst while it recovers), then the plan or
 * the publish.
 */
function pending(
  controller: ControllerState,
  driver: DriverState,
  bugs: MigrationBugs,
  limits: PartLimits,
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
      sends.push(...driverSends(controller, driver, index, bugs, limits));
      return;
    }
    const shard = identity.shard;
    for (const gid of factsSources(identity)) {
      sends.push({ to: gid, command: { type: 'query-shard', shard } });
    }
  });
  if (readyToPublish(controller, driver)) proposals.push({ type: 'publish', num: next.num });
  return { driver, sends, proposals };
}

/**
 * Group `from` answered a facts query for `shard`: recovery keeps it, and once the shard's
 * groups all answered it resumes and the shard's next command follows (after what recovery
 * itself sends). An answer that counts for nothing calls for no command.
 */
function handleFacts(
  controller: ControllerState,
  driver: DriverState,
  from: Gid,
  shard: number,
  result: GroupResult,
  bugs: MigrationBugs,
  limits: PartLimits,
): DriverStep {
  const index = moveIndex(controller, shard);
  if (index < 0 || result.type !== 'facts') return idle(driver);
  const reported = reportFacts(controller, driver, index, from, result.facts, bugs);
  if (reported === null) return idle(driver);
  // Still waiting for the other group: its query is out (a tick sends both again).
  if (reported.driver.progress[index]!.step === 'recover') return idle(reported.driver);
  const step = pending(controller, reported.driver, bugs, limits, index);
  return { ...step, sends: [...reported.sends, ...step.sends] };
}

/**
 * `limits`: how large images are cut into parts (image-parts.ts); the runtime passes one
 * append's byte budget, the model a small one.
 */
export function stepDriver(
  controller: ControllerState,
  driver: DriverState,
  input: DriverInput,
  bugs: MigrationBugs = noMigrationBugs,
  limits: PartLimits = defaultPartLimits,
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
      return pending(controller, beliefs, bugs, limits);
    case 'reply': {
      if (!current) return pending(controller, beliefs, bugs, limits);
      const { command, from, result } = input;
      if (command.type === 'query-shard') {
        return handleFacts(controller, beliefs, from, command.shard, result, bugs, limits);
      }
      const index = 'identity' in command ? moveIndex(controller, command.identity.shard) : -1;
      const moved = index < 0 ? beliefs : handleReply(controller, beliefs, index, result);
      // A reply that moves nothing on (late, duplicated, an error) calls for no new command.
      return moved === beliefs ? idle(beliefs) : pending(controller, moved, bugs, limits, index);
    }
  }
}
