/**
 * Driver restart, recovery and publication (DESIGN §3). A restarted driver knows only what
 * was persisted: the configurations, `current` and `next`. For each moved shard it reads the
 * facts of src and dst (phase, identity, receipt, tombstone) and resumes from them:
 *
 * - dst holds the receipt for the identity: continue with delete (done if src already holds
 *   the tombstone), without asking src for data;
 * - otherwise freeze again: src answers a repeated freeze with the image it froze.
 *
 * It never unfreezes src (the unfreeze-on-recovery bug does) and never plans anew while
 * `next` exists (the skip-config bug does, in planNext).
 */
import { assert } from '../assert.js';
import { unassignedGid } from '../controller/types.js';
import { sameIdentity } from '../group/digest.js';
import type { ShardFacts } from '../group/types.js';
import type { DriverOptions } from './driver.js';
import type { ControllerState, DriverState, Send, ShardProgress } from './types.js';

/** A driver that just (re)started: every moved shard of `next` must be recovered. */
export function restartDriver(controller: ControllerState): DriverState {
  const moves = controller.next?.moves ?? [];
  return { progress: moves.map((): ShardProgress => ({ step: 'recover' })) };
}

/**
 * Resumes moved shard number `index` from the groups' facts. `srcFacts` is null when the
 * shard had no owner (src = 0). Returns the new driver and the commands recovery sends.
 */
export function recoverShard(
  controller: ControllerState,
  driver: DriverState,
  index: number,
  srcFacts: ShardFacts | null,
  dstFacts: ShardFacts,
  options: DriverOptions = {},
): { driver: DriverState; sends: Send[] } | null {
  const identity = controller.next?.moves[index];
  if (identity === undefined || driver.progress[index]?.step !== 'recover') return null;
  const noSource = identity.src === unassignedGid;
  assert((srcFacts === null) === noSource, 'recoverShard: src facts mismatch');
  const sends: Send[] = [];
  // unfreeze-on-recovery: "current still names src, so src should serve": wrong once the
  // image may have been installed at dst.
  const owners = controller.configs[controller.current]!.shards;
  const stillNamed = owners[identity.shard] === identity.src;
  const frozenHere = srcFacts?.phase === 'frozen' && sameIdentity(srcFacts.identity, identity);
  if (options.bug === 'unfreeze-on-recovery' && stillNamed && frozenHere) {
    sends.push({ to: identity.src, command: { type: 'unfreeze', identity } });
  }
  const deleted = srcFacts !== null && sameIdentity(srcFacts.tombstone, identity);
  let progress: ShardProgress;
  if (dstFacts.receipt !== null && sameIdentity(dstFacts.receipt.identity, identity)) {
    const done = srcFacts === null || deleted;
    progress = done ? { step: 'done' } : { step: 'delete', receipt: dstFacts.receipt };
  } else if (srcFacts === null) {
    progress = { step: 'install', image: { kv: [], dedup: [], sessionFloor: 0 } };
  } else if (deleted) {
    // Only a bug deletes before dst's receipt: the data is gone, nothing is left to move.
    progress = { step: 'done' };
  } else {
    progress = { step: 'freeze' };
  }
  const list = driver.progress.slice();
  list[index] = progress;
  return { driver: { progress: list }, sends };
}

/** Publishes `next` once every moved shard is done: current := N+1, next cleared. */
export function publishNext(
  controller: ControllerState,
  driver: DriverState,
): { controller: ControllerState; driver: DriverState } | null {
  const next = controller.next;
  if (next === null || !driver.progress.every((progress) => progress.step === 'done')) return null;
  assert(driver.progress.length === next.moves.length, 'publishNext: progress does not match next');
  return {
    controller: { configs: controller.configs, current: next.num, next: null },
    driver: { progress: [] },
  };
}
