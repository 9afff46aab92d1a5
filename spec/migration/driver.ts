/**
 * The migration driver's decisions (DESIGN §3): the controller group's leader moves shards
 * for one configuration change at a time, N -> N+1, never skipping one.
 *
 * 1. The controller records the intent `next` (its `plan` command) before any step; the
 *    driver learns each moved shard's starting step from its groups' facts (recovery.ts: a
 *    driver trusts no belief it did not rebuild), freeze, or install with no image when no
 *    group ever held the shard.
 * 2. Per moved shard, independently: Freeze at src (the reply carries the image), Install at
 *    dst (the reply carries the receipt), Delete at src (shown that receipt). A shard left
 *    unassigned (dst 0) is done once frozen: src keeps it. A shard that comes back to the
 *    group that kept it (src = dst) is done once installed: there is nothing to delete.
 * 3. Once every moved shard is done, the controller publishes (`publish`): current := N+1.
 *
 * recovery.ts rebuilds the beliefs after a restart; driver-step.ts composes all of it into
 * the one step function the runtime calls.
 */
import { unassignedGid } from '../controller/types.js';
import type { ControllerState } from '../controller/state-machine.js';
import { sameIdentity } from '../group/digest.js';
import { imageParts, partsManifest, defaultPartLimits, type PartLimits } from '../group/image-parts.js';
import type { GroupCommand, GroupResult, Identity, Image } from '../group/types.js';
import type { MigrationBugs } from './bugs.js';
import type { DriverState, Send, ShardProgress } from './types.js';

/** The position of `shard` in next.moves, or -1 when the intent does not move it. */
export function moveIndex(controller: ControllerState, shard: number): number {
  if (controller.next === null) return -1;
  return controller.next.moves.findIndex((identity) => identity.shard === shard);
}

/** Once the install's receipt is back, is anything left to do at src? */
const needsDelete = (identity: Identity) =>
  identity.src !== unassignedGid && identity.src !== identity.dst;

/**
 * The commands the driver may send now for moved shard number `index`: the one its step
 * calls for, and, with delete-before-receipt, a delete as soon as it holds the image.
 */
export function driverSends(
  controller: ControllerState,
  driver: DriverState,
  index: number,
  bugs: MigrationBugs,
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
      return withEarlyDelete(install, identity, image?.digest ?? null, bugs);
    }
    case 'stage': {
      const { manifest, parts, acknowledged } = progress;
      const part = parts[acknowledged];
      const command: GroupCommand = part === undefined
        ? { type: 'install-parts', identity, manifest }
        : { type: 'stage-part', identity, manifest, index: acknowledged, part };
      return withEarlyDelete({ to: identity.dst, command }, identity, manifest.digest, bugs);
    }
    case 'delete': {
      const receipt = progress.receipt;
      return [{ to: identity.src, command: { type: 'delete', identity, receipt } }];
    }
  }
}

/**
 * delete-before-receipt: deletes at src at once, showing a receipt made up from the image
 * instead of dst's.
 */
function withEarlyDelete(
  install: Send,
  identity: Identity,
  digest: string | null,
  bugs: MigrationBugs,
): Send[] {
  if (!bugs['delete-before-receipt'] || digest === null || !needsDelete(identity)) {
    return [install];
  }
  const receipt = { identity, digest };
  return [install, { to: identity.src, command: { type: 'delete', identity, receipt } }];
}

/**
 * The step that installs `image` at dst: whole when it fits one part (or the shard comes back
 * to the group that kept it frozen, which holds the data already), else part by part.
 */
function installStep(identity: Identity, image: Image, limits: PartLimits): ShardProgress {
  if (identity.src === identity.dst) return { step: 'install', image };
  const parts = imageParts(image, limits);
  if (parts.length < 2) return { step: 'install', image };
  return { step: 'stage', manifest: partsManifest(image, parts.length), parts, acknowledged: 0 };
}

function withProgress(driver: DriverState, index: number, progress: ShardProgress): DriverState {
  const list = driver.progress.slice();
  list[index] = progress;
  return { num: driver.num, progress: list };
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
  limits: PartLimits = defaultPartLimits,
): DriverState {
  const identity = controller.next?.moves[index];
  const progress = driver.progress[index];
  if (identity === undefined || progress === undefined) return driver;
  if (progress.step === 'freeze' && result.type === 'image') {
    if (!sameIdentity(result.identity, identity)) return driver;
    if (identity.dst === unassignedGid) return withProgress(driver, index, { step: 'done' });
    return withProgress(driver, index, installStep(identity, result.image, limits));
  }
  if (progress.step === 'stage' && result.type === 'staged') {
    const ours = sameIdentity(result.identity, identity) &&
      result.digest === progress.manifest.digest;
    // Only news moves the driver: an answer for a part acknowledged already is late.
    if (!ours || result.parts <= progress.acknowledged) return driver;
    const acknowledged = Math.min(result.parts, progress.parts.length);
    return withProgress(driver, index, { ...progress, acknowledged });
  }
  const installing = progress.step === 'install' || progress.step === 'stage';
  if (installing && result.type === 'receipt') {
    if (!sameIdentity(result.receipt.identity, identity)) return driver;
    const receipt = result.receipt;
    const next: ShardProgress = needsDelete(identity)
      ? { step: 'delete', receipt }
      : { step: 'done' };
    return withProgress(driver, index, next);
  }
  if (progress.step === 'delete' && result.type === 'deleted') {
    if (!sameIdentity(result.tombstone, identity)) return driver;
    return withProgress(driver, index, { step: 'done' });
  }
  return driver;
}

/** Every moved shard of `next` is done: the driver may propose `publish`. */
export function readyToPublish(controller: ControllerState, driver: DriverState): boolean {
  const next = controller.next;
  if (next === null || driver.progress.length !== next.moves.length) return false;
  return driver.progress.every((progress) => progress.step === 'done');
}
