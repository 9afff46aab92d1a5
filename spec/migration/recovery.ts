/**
 * Driver restart and recovery (DESIGN §3). A restarted driver knows only what the controller
 * persisted: the configurations, `current` and `next`. For each moved shard it asks src and
 * dst for their facts (phase, identity, receipt, tombstone), keeps each answer as it comes
 * (reportFacts: the groups answer separately, in any order, maybe late), and once both are in
 * resumes from them:
 *
 * - dst holds the receipt for the identity: continue with delete (done if src already holds
 *   the tombstone, or if nothing is left at src to delete), without asking src for data;
 * - the shard is left unassigned (dst 0): done if src froze it under this identity;
 * - src still serves the shard, larger than one part: pre-copy, then freeze (driver.ts);
 * - otherwise freeze again: src answers a repeated freeze with the image it froze.
 *
 * It never unfreezes src (the unfreeze-on-recovery bug does) and never plans anew while
 * `next` exists (the controller refuses such a plan).
 */
import { assert } from '../assert.js';
import type { ControllerState } from '../controller/state-machine.js';
import { unassignedGid, type Gid, type Identity } from '../controller/types.js';
import { sameIdentity } from '../group/digest.js';
import type { ShardFacts } from '../group/types.js';
import type { MigrationBugs } from './bugs.js';
import type { DriverState, Send, ShardProgress } from './types.js';

/** A recovering shard that has heard from neither group. */
const unreported: ShardProgress = { step: 'recover', srcFacts: null, dstFacts: null };

/** A driver that just (re)started: every moved shard of `next` must be recovered. */
export function restartDriver(controller: ControllerState): DriverState {
  const next = controller.next;
  const progress = (next?.moves ?? []).map((): ShardProgress => unreported);
  return { num: next?.num ?? null, progress };
}

/**
 * The groups a recovering move asks for facts: src and dst, each once (a move back to the
 * group that kept the shard, src = dst, asks it once). Each is asked again until the shard
 * resumes, one that answered already too: its newer answer replaces the first.
 */
export function factsSources(identity: Identity): Gid[] {
  const sources: Gid[] = [];
  if (identity.src !== unassignedGid) sources.push(identity.src);
  if (identity.dst !== unassignedGid && identity.dst !== identity.src) sources.push(identity.dst);
  return sources;
}

/** Src and dst have both answered (a gid 0 answers nothing). */
function factsComplete(
  identity: Identity,
  srcFacts: ShardFacts | null,
  dstFacts: ShardFacts | null,
): boolean {
  return (identity.src === unassignedGid || srcFacts !== null) &&
    (identity.dst === unassignedGid || dstFacts !== null);
}

/**
 * Group `from` reported its facts of moved shard number `index`: they are kept until src and
 * dst both reported, then the shard resumes from them (recoverShard). Null when the report
 * counts for nothing: the shard is not recovering (a late or repeated answer), or `from` is
 * neither its src nor its dst. A group that reports again replaces its first answer.
 */
export function reportFacts(
  controller: ControllerState,
  driver: DriverState,
  index: number,
  from: Gid,
  facts: ShardFacts,
  bugs: MigrationBugs,
): { driver: DriverState; sends: Send[] } | null {
  const identity = controller.next?.moves[index];
  const progress = driver.progress[index];
  if (identity === undefined || progress?.step !== 'recover') return null;
  if (from === unassignedGid || (from !== identity.src && from !== identity.dst)) return null;
  const reported: ShardProgress = {
    step: 'recover',
    srcFacts: from === identity.src ? facts : progress.srcFacts,
    dstFacts: from === identity.dst ? facts : progress.dstFacts,
  };
  const list = driver.progress.slice();
  list[index] = reported;
  const withFacts: DriverState = { num: driver.num, progress: list };
  if (!factsComplete(identity, reported.srcFacts, reported.dstFacts)) {
    return { driver: withFacts, sends: [] };
  }
  const recovered = recoverShard(controller, withFacts, index, reported.srcFacts,
    reported.dstFacts, bugs);
  assert(recovered !== null, 'reportFacts: a recovering shard with all facts resumes');
  assert(recovered.driver.progress[index]!.step !== 'recover', 'reportFacts: resumed');
  return recovered;
}

/** The step the facts call for; `srcFacts` is null when src is 0, `dstFacts` when dst is. */
function resumeFrom(
  identity: Identity,
  srcFacts: ShardFacts | null,
  dstFacts: ShardFacts | null,
  bugs: MigrationBugs,
): ShardProgress {
  // recovery-needs-source-after-delete: a move with a source to delete asks src for its
  // image again whatever dst's receipt and src's tombstone say; once src deleted the shard
  // it refuses, forever.
  const movesAway = srcFacts !== null && identity.src !== identity.dst;
  if (bugs['recovery-needs-source-after-delete'] && movesAway) return { step: 'freeze' };
  const deleted = srcFacts !== null && sameIdentity(srcFacts.tombstone, identity);
  const receipt = dstFacts?.receipt ?? null;
  if (receipt !== null && sameIdentity(receipt.identity, identity)) {
    const nothingLeft = srcFacts === null || deleted || identity.src === identity.dst;
    return nothingLeft ? { step: 'done' } : { step: 'delete', receipt };
  }
  if (srcFacts === null) return { step: 'install', image: null };
  // Only a bug deletes before dst's receipt: the data is gone, nothing is left to move.
  if (deleted) return { step: 'done' };
  const frozenHere = srcFacts.phase === 'frozen' && sameIdentity(srcFacts.identity, identity);
  if (identity.dst === unassignedGid && frozenHere) return { step: 'done' };
  const copyable = srcFacts.phase === 'serving' && srcFacts.large === true &&
    identity.dst !== unassignedGid && identity.src !== identity.dst;
  return copyable ? { step: 'precopy' } : { step: 'freeze' };
}

/**
 * Resumes moved shard number `index` from the groups' facts. Returns the new driver and the
 * commands recovery sends (none, unless a bug switch adds one).
 */
export function recoverShard(
  controller: ControllerState,
  driver: DriverState,
  index: number,
  srcFacts: ShardFacts | null,
  dstFacts: ShardFacts | null,
  bugs: MigrationBugs,
): { driver: DriverState; sends: Send[] } | null {
  const identity = controller.next?.moves[index];
  if (identity === undefined || driver.progress[index]?.step !== 'recover') return null;
  assert((srcFacts === null) === (identity.src === unassignedGid), 'recoverShard: src facts');
  assert((dstFacts === null) === (identity.dst === unassignedGid), 'recoverShard: dst facts');
  const sends: Send[] = [];
  // unfreeze-on-recovery: "current still names src, so src should serve": wrong once the
  // image may have been installed at dst.
  const owners = controller.configs[controller.current]!.shards;
  const stillNamed = owners[identity.shard] === identity.src;
  const frozenHere = srcFacts?.phase === 'frozen' && sameIdentity(srcFacts.identity, identity);
  if (bugs['unfreeze-on-recovery'] && stillNamed && frozenHere) {
    sends.push({ to: identity.src, command: { type: 'unfreeze', identity } });
  }
  const list = driver.progress.slice();
  list[index] = resumeFrom(identity, srcFacts, dstFacts, bugs);
  return { driver: { num: driver.num, progress: list }, sends };
}
