/**
 * The migration driver (DESIGN §3): the controller group's leader moves shards for one
 * configuration change at a time, N -> N+1, never skipping one.
 *
 * 1. planNext persists the intent `next` (every moved shard's identity) before any step.
 * 2. Per moved shard, independently: Freeze at src (the reply carries the image), Install at
 *    dst (the reply carries the receipt), Delete at src (shown that receipt).
 * 3. publishNext, once every moved shard is done: current := N+1, next cleared.
 *
 * A driver that restarts (a crash, or a new controller leader) keeps only the persisted
 * state: each moved shard starts at `recover`, and recoverShard decides the next step from
 * the facts the two groups report. If dst holds the receipt, the driver continues with delete
 * and publish without asking src for data; otherwise it freezes again, which src answers
 * with the image it froze. It never unfreezes a source and never re-plans over `next`.
 */
import { assert } from '../assert.js';
import { unassignedGid, type Config, type ControllerResult } from '../controller/types.js';
import { sameIdentity } from '../group/digest.js';
import type { GroupResult, Identity, Image, MigrationBug } from '../group/types.js';
import type { ControllerState, DriverState, Intent, Send, ShardProgress } from './types.js';

export interface DriverOptions {
  readonly bug?: MigrationBug | undefined;
}

const emptyImage: Image = { kv: [], dedup: [], sessionFloor: 0 };

/** The identities of the shards whose owner changes from `from` to `to`, by shard. */
export function planMigration(from: Config, to: Config): ControllerResult<Identity[]> {
  assert(from.shards.length === to.shards.length, 'planMigration: shard counts differ');
  const moves: Identity[] = [];
  for (let shard = 0; shard < to.shards.length; shard++) {
    const src = from.shards[shard]!;
    const dst = to.shards[shard]!;
    if (src === dst) continue;
    // An unassigned shard would have no holder for its data: the controller assigns 0 only
    // when no group is left, and migration refuses to drop data on that request.
    if (dst === unassignedGid) {
      return { ok: false, error: `config ${to.num} unassigns shard ${shard} held by gid ${src}` };
    }
    moves.push({ shard, epoch: to.num, src, dst });
  }
  return { ok: true, value: moves };
}

/** Where a fresh migration of `identity` starts: a shard that had no owner starts empty. */
function initialProgress(identity: Identity): ShardProgress {
  if (identity.src === unassignedGid) return { step: 'install', image: emptyImage };
  return { step: 'freeze' };
}

/**
 * Persists the intent for current -> current+1. Null when there is nothing to plan: an
 * intent exists already, no newer configuration is recorded, or the plan is refused.
 */
export function planNext(
  controller: ControllerState,
  options: DriverOptions = {},
): { controller: ControllerState; driver: DriverState } | null {
  const newest = controller.configs.length - 1;
  // skip-config: plans from current straight to the newest configuration, even over an
  // in-flight intent (seed 1: "query the next config, not the latest").
  const skip = options.bug === 'skip-config';
  const target = skip ? newest : controller.current + 1;
  if (target > newest || target <= controller.current) return null;
  if (controller.next !== null && (!skip || controller.next.num === target)) return null;
  const plan = planMigration(controller.configs[controller.current]!, controller.configs[target]!);
  if (!plan.ok) return null;
  const next: Intent = { num: target, moves: plan.value };
  return {
    controller: { ...controller, next },
    driver: { progress: plan.value.map(initialProgress) },
  };
}

/** The position of `shard` in next.moves, or -1 when the intent does not move it. */
export function moveIndex(controller: ControllerState, shard: number): number {
  if (controller.next === null) return -1;
  return controller.next.moves.findIndex((identity) => identity.shard === shard);
}

/**
 * The commands the driver may send now for moved shard number `index`: the one its step
 * calls for, and, with delete-before-receipt, a delete as soon as it holds the image.
 */
export function driverSends(
  controller: ControllerState,
  driver: DriverState,
  index: number,
  options: DriverOptions = {},
): Send[] {
  const identity = controller.next?.moves[index];
  const progress = driver.progress[index];
  if (identity === undefined || progress === undefined) return [];
  switch (progress.step) {
    case 'recover':
    case 'done':
      return [];
    case 'freeze':
      return [{ to: identity.src, command: { type: 'freeze', identity } }];
    case 'install': {
      const image = progress.image;
      const install: Send = { to: identity.dst, command: { type: 'install', identity, image } };
      const early = options.bug === 'delete-before-receipt' && identity.src !== unassignedGid;
      if (!early) return [install];
      return [install, { to: identity.src, command: { type: 'delete', identity, receipt: null } }];
    }
    case 'delete': {
      const receipt = progress.receipt;
      return [{ to: identity.src, command: { type: 'delete', identity, receipt } }];
    }
  }
}

function withProgress(driver: DriverState, index: number, progress: ShardProgress): DriverState {
  const list = driver.progress.slice();
  list[index] = progress;
  return { progress: list };
}

/**
 * The driver's step after a group's reply; the same driver object when nothing changes. A
 * reply counts only for the step the driver is at and for the identity of this move: a late
 * reply of an earlier migration of the shard (the network delivers late) is ignored.
 */
export function handleReply(
  controller: ControllerState,
  driver: DriverState,
  index: number,
  result: GroupResult,
): DriverState {
  const identity = controller.next?.moves[index];
  const progress = driver.progress[index];
  assert(identity !== undefined && progress !== undefined, `handleReply: no move ${index}`);
  if (progress.step === 'freeze' && result.type === 'image') {
    if (!sameIdentity(result.identity, identity)) return driver;
    return withProgress(driver, index, { step: 'install', image: result.image });
  }
  if (progress.step === 'install' && result.type === 'receipt') {
    if (!sameIdentity(result.receipt.identity, identity)) return driver;
    const done = identity.src === unassignedGid;
    const receipt = result.receipt;
    return withProgress(driver, index, done ? { step: 'done' } : { step: 'delete', receipt });
  }
  if (progress.step === 'delete' && result.type === 'deleted') {
    if (!sameIdentity(result.tombstone, identity)) return driver;
    return withProgress(driver, index, { step: 'done' });
  }
  return driver;
}
