/**
 * The migration driver's decisions (DESIGN §3): the controller group's leader moves shards
 * for one configuration change at a time, N -> N+1, never skipping one.
 *
 * 1. The controller records the intent `next` (its `plan` command) before any step; the
 *    driver learns each moved shard's starting step from its groups' facts (recovery.ts: a
 *    driver trusts no belief it did not rebuild), freeze, or install with no image when no
 *    group ever held the shard.
 * 2. Per moved shard, independently: Precopy at src while it still serves (a shard larger
 *    than one part is pinned there and its parts staged at dst, so the freeze has only the
 *    delta left to hand over), Freeze at src (the reply carries the image, or for one
 *    larger than a part its manifest: the driver then fetches each part from src and stages
 *    it at dst, a window of parts at a time), Install at dst (the reply carries the receipt),
 *    Delete at src (shown that receipt). A shard left
 *    unassigned (dst 0) is done once frozen: src keeps it. A shard that comes back to the
 *    group that kept it (src = dst) is done once installed: there is nothing to delete.
 * 3. Once every moved shard is done, the controller publishes (`publish`): current := N+1.
 *
 * recovery.ts rebuilds the beliefs after a restart; driver-step.ts composes all of it into
 * the one step function the runtime calls.
 */
import { unassignedGid } from '../controller/types.js';
import type { ControllerState } from '../controller/state-machine.js';
import { assert } from '../assert.js';
import { sameIdentity } from '../group/digest.js';
import { defaultPartLimits, type PartLimits } from '../group/image-cut.js';
import type { GroupCommand, GroupResult, Identity } from '../group/types.js';
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
 * calls for (while staging, the window of parts after the last acknowledged, in order), and,
 * with delete-before-receipt, a delete as soon as it holds the image.
 */
export function driverSends(
  controller: ControllerState,
  driver: DriverState,
  index: number,
  bugs: MigrationBugs,
  limits: PartLimits = defaultPartLimits,
): Send[] {
  const identity = controller.next?.moves[index];
  const progress = driver.progress[index];
  if (identity === undefined || progress === undefined) return [];
  switch (progress.step) {
    case 'recover':
    case 'done':
      return [];
    case 'precopy':
      return [{ to: identity.src, command: { type: 'precopy', identity } }];
    case 'freeze':
      return [{ to: identity.src, command: { type: 'freeze', identity } }];
    case 'install': {
      const image = progress.image;
      const install: Send = { to: identity.dst, command: { type: 'install', identity, image } };
      return withEarlyDelete([install], identity, image?.digest ?? null, bugs);
    }
    case 'stage': {
      const sends = stageSends(identity, progress, limits);
      const { manifest, delta } = progress;
      const digest = delta?.digest ?? (manifest.precopy === true ? null : manifest.digest);
      return withEarlyDelete(sends, identity, digest, bugs);
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
  installs: readonly Send[],
  identity: Identity,
  digest: string | null,
  bugs: MigrationBugs,
): Send[] {
  if (!bugs['delete-before-receipt'] || digest === null || !needsDelete(identity)) {
    return [...installs];
  }
  const receipt = { identity, digest };
  return [...installs, { to: identity.src, command: { type: 'delete', identity, receipt } }];
}

/**
 * While staging: the parts from the first not acknowledged, at most `partsInFlightMax` of
 * them, lowest first, each fetched from src until the driver holds it, then staged at dst;
 * once all are acknowledged, the install that assembles them (with the freeze's delta, for a
 * pre-copy base: a base staged before the freeze has moved the driver on to freeze already).
 */
function stageSends(
  identity: Identity,
  progress: Extract<ShardProgress, { step: 'stage' }>,
  limits: PartLimits,
): Send[] {
  const { manifest, parts, acknowledged } = progress;
  const delta = progress.delta ?? null;
  assert(acknowledged >= 0 && acknowledged <= parts.length, 'acknowledged past the parts');
  assert(Number.isSafeInteger(limits.partsInFlightMax) && limits.partsInFlightMax >= 1,
    'the parts window holds at least one part');
  assert(delta === null || manifest.precopy === true, 'a delta applies to a pre-copy base');
  if (acknowledged === parts.length) {
    assert(manifest.precopy !== true || delta !== null, 'a staged base waits for its freeze');
    const install: GroupCommand = { type: 'install-parts', identity, manifest,
      ...(delta === null ? {} : { delta }) };
    return [{ to: identity.dst, command: install }];
  }
  const end = Math.min(parts.length, acknowledged + limits.partsInFlightMax);
  const sends: Send[] = [];
  for (let index = acknowledged; index < end; index++) {
    const part = parts[index]!;
    if (part === null) {
      const fetch: GroupCommand =
        { type: 'fetch-part', identity, digest: manifest.digest, index };
      sends.push({ to: identity.src, command: fetch });
    } else {
      sends.push({ to: identity.dst, command: { type: 'stage-part', identity, manifest, index,
        part } });
    }
  }
  return sends;
}

/**
 * While staging: a part fetched from src is kept until dst acknowledges it; dst's count of
 * parts staged moves the window on (the parts it acknowledged are dropped: never sent again).
 * Only news moves the driver: an answer for a part held or acknowledged already is late.
 */
function handleStageReply(
  driver: DriverState,
  index: number,
  identity: Identity,
  progress: Extract<ShardProgress, { step: 'stage' }>,
  result: GroupResult,
): DriverState {
  const { manifest, parts, acknowledged } = progress;
  if (result.type === 'part') {
    const ours = sameIdentity(result.identity, identity) && result.digest === manifest.digest;
    const wanted = result.index >= acknowledged && result.index < parts.length &&
      parts[result.index] === null;
    if (!ours || !wanted) return driver;
    const held = parts.slice();
    held[result.index] = result.part;
    return withProgress(driver, index, { ...progress, parts: held });
  }
  if (result.type !== 'staged') return driver;
  const ours = sameIdentity(result.identity, identity) && result.digest === manifest.digest;
  if (!ours || result.parts <= acknowledged) return driver;
  const next = Math.min(result.parts, parts.length);
  // A base staged whole before the freeze: freeze now, remembering dst holds the base.
  if (next === parts.length && manifest.precopy === true && progress.delta === undefined) {
    return withProgress(driver, index, { step: 'freeze', precopied: manifest });
  }
  const held = parts.map((part, position) => (position < next ? null : part));
  return withProgress(driver, index, { ...progress, parts: held, acknowledged: next });
}

/**
 * A freeze answered by a manifest: stage its parts; for a pre-copy base with the delta, none
 * are left to stage when this driver saw dst acknowledge the whole base (else dst's first
 * answer says how many it holds).
 */
function stageFrozen(
  progress: Extract<ShardProgress, { step: 'freeze' }>,
  result: Extract<GroupResult, { type: 'frozen' }>,
): ShardProgress {
  const { manifest, delta } = result;
  const parts: null[] = new Array<null>(manifest.count).fill(null);
  const based = delta !== undefined && progress.precopied !== undefined &&
    progress.precopied.digest === manifest.digest && progress.precopied.count === manifest.count;
  const acknowledged = based ? manifest.count : 0;
  return { step: 'stage', manifest, parts, acknowledged, ...(delta === undefined ? {} : { delta }) };
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
): DriverState {
  const identity = controller.next?.moves[index];
  const progress = driver.progress[index];
  if (identity === undefined || progress === undefined) return driver;
  if (progress.step === 'freeze' && result.type === 'image') {
    if (!sameIdentity(result.identity, identity)) return driver;
    if (identity.dst === unassignedGid) return withProgress(driver, index, { step: 'done' });
    return withProgress(driver, index, { step: 'install', image: result.image });
  }
  if (progress.step === 'freeze' && result.type === 'frozen') {
    // A shard coming back (src = dst) is answered whole, never so.
    if (!sameIdentity(result.identity, identity) || identity.src === identity.dst) return driver;
    if (identity.dst === unassignedGid) return withProgress(driver, index, { step: 'done' });
    return withProgress(driver, index, stageFrozen(progress, result));
  }
  if (progress.step === 'precopy' && result.type === 'precopied') {
    if (!sameIdentity(result.identity, identity)) return driver;
    const manifest = result.manifest;
    if (manifest === null) return withProgress(driver, index, { step: 'freeze' });
    const parts: null[] = new Array<null>(manifest.count).fill(null);
    return withProgress(driver, index,
      { step: 'stage', manifest, parts, acknowledged: 0 });
  }
  if (progress.step === 'stage' && result.type !== 'receipt') {
    return handleStageReply(driver, index, identity, progress, result);
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
