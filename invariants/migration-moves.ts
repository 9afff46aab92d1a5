/**
 * The invariants that relate the groups' shard records to the controller's configurations
 * and the moves in flight (DESIGN §3): OneImagePerIdentity, UnaffectedServed, GarbageBound.
 * They read the controller's state (configuration history, `current`, intent `next`) and
 * every group's state at one instant, and OneImagePerIdentity also the driver's beliefs and
 * the messages in flight: only the `migration` model has such a consistent cut. The runtime's
 * controller and groups apply their logs at their own pace, so a live view would see a move
 * published before its source dropped its data; the simulator checks the settled end state
 * instead (verify/simulate/liveness-checks.ts, PublishedServed).
 */
import type { ControllerState } from '../spec/controller/state-machine.js';
import type { Identity } from '../spec/controller/types.js';
import { sameIdentity } from '../spec/group/digest.js';
import type {
  GroupCommand, ImageDelta, PartsManifest, ShardState,
} from '../spec/group/types.js';
import type { DriverState, ShardProgress } from '../spec/migration/types.js';
import type { GroupView } from './shard-view.js';

type Controller = Pick<ControllerState, 'configs' | 'current' | 'next'>;

export interface MovesView {
  readonly controller: Controller;
  /** groups[gid - 1]. */
  readonly groups: readonly GroupView<ShardState>[];
}

export interface ImagesView extends MovesView {
  readonly driver: Pick<DriverState, 'progress'>;
  /** The copies of messages in flight. */
  readonly network: readonly { readonly command: GroupCommand }[];
}

const moveText = (identity: Identity) =>
  `the move of shard ${identity.shard} at epoch ${identity.epoch} ` +
  `(gid ${identity.src} -> gid ${identity.dst})`;

/**
 * The digest of the image a manifest's parts make: a pre-copy base's are not an image until
 * the freeze's delta is applied (the delta's digest, when known, is the image's).
 */
const imageOfManifest = (manifest: PartsManifest, delta: ImageDelta | undefined) =>
  delta?.digest ?? (manifest.precopy === true ? null : manifest.digest);

/** The digest of the image a driver's belief holds to install, or null. */
function heldDigest(progress: ShardProgress | undefined): string | null {
  if (progress?.step === 'install') return progress.image?.digest ?? null;
  return progress?.step === 'stage' ? imageOfManifest(progress.manifest, progress.delta) : null;
}

/** The digest of the image an install, part or install of parts for `identity` carries. */
function carriedDigest(command: GroupCommand, identity: Identity): string | null {
  const installing = command.type === 'install' || command.type === 'stage-part' ||
    command.type === 'install-parts';
  if (!installing || !sameIdentity(command.identity, identity)) return null;
  if (command.type === 'install') return command.image?.digest ?? null;
  return imageOfManifest(command.manifest, command.type === 'install-parts' ? command.delta : undefined);
}

/** Who holds which digest for `identity`: src's frozen image, dst's receipt, driver, network. */
function imageDigests(view: ImagesView, identity: Identity, index: number) {
  const found: { who: string; digest: string }[] = [];
  const record = (gid: number) =>
    (gid === 0 ? null : view.groups[gid - 1]!.shards[identity.shard]!);
  const src = record(identity.src);
  if (src?.frozenDigest && sameIdentity(src.identity, identity)) {
    found.push({ who: `gid ${identity.src} froze`, digest: src.frozenDigest });
  }
  const receipt = record(identity.dst)?.receipt;
  if (receipt && sameIdentity(receipt.identity, identity)) {
    found.push({ who: `gid ${identity.dst}'s receipt has`, digest: receipt.digest });
  }
  const staged = record(identity.dst)?.staged;
  if (staged && sameIdentity(staged.identity, identity) && staged.manifest.precopy !== true) {
    found.push({ who: `gid ${identity.dst} staged parts of`, digest: staged.manifest.digest });
  }
  const held = heldDigest(view.driver.progress[index]);
  if (held !== null) found.push({ who: 'the driver holds', digest: held });
  for (const copy of view.network) {
    const digest = carriedDigest(copy.command, identity);
    if (digest !== null) found.push({ who: 'the network carries', digest });
  }
  return found;
}

/**
 * OneImagePerIdentity: a migration identity binds one image (the receipt binds the identity to
 * the image's digest): for every move of the intent, the digest src froze, the images the
 * driver holds or the network carries for it, and dst's receipt for it are one digest.
 */
export function oneImagePerIdentity(view: ImagesView): boolean {
  const next = view.controller.next;
  if (next === null) return true;
  return next.moves.every((identity, index) => {
    const digests = new Set<string>();
    const src = identity.src === 0 ? null : view.groups[identity.src - 1]!.shards[identity.shard]!;
    if (src?.frozenDigest && sameIdentity(src.identity, identity)) digests.add(src.frozenDigest);
    const dst = identity.dst === 0 ? null : view.groups[identity.dst - 1]!.shards[identity.shard]!;
    const receipt = dst?.receipt;
    if (receipt && sameIdentity(receipt.identity, identity)) digests.add(receipt.digest);
    const staged = dst?.staged;
    if (staged && sameIdentity(staged.identity, identity) && staged.manifest.precopy !== true) {
      digests.add(staged.manifest.digest);
    }
    const held = heldDigest(view.driver.progress[index]);
    if (held !== null) digests.add(held);
    for (const copy of view.network) {
      const digest = carriedDigest(copy.command, identity);
      if (digest !== null) digests.add(digest);
    }
    return digests.size <= 1;
  });
}

export function explainOneImagePerIdentity(view: ImagesView): string {
  for (const [index, identity] of (view.controller.next?.moves ?? []).entries()) {
    const found = imageDigests(view, identity, index);
    if (new Set(found.map(({ digest }) => digest)).size <= 1) continue;
    const held = found.map(({ who, digest }) => `${who} ${digest}`).join(', ');
    return `${moveText(identity)} binds two images: ${held}`;
  }
  return 'every identity binds one image';
}

/** A group by gid: the model keeps groups[gid - 1]; a run's tool may not have seen one yet. */
export type GroupOf = (view: MovesView, gid: number) => GroupView<ShardState> | undefined;

const modelGroupOf: GroupOf = (view, gid) => view.groups[gid - 1];

/**
 * UnaffectedServed: a shard the intent does not move is served by its owner in `current`.
 * With no intent in flight it says every shard of the published configuration is served by
 * its owner: the simulator reads it so on the settled end state (PublishedServed), where a
 * group it never saw holds nothing.
 */
export function unaffectedServed(view: MovesView, groupOf: GroupOf = modelGroupOf): boolean {
  return unservedShard(view, groupOf) === null;
}

/** The first shard that breaks UnaffectedServed, with its owner and the owner's phase. */
function unservedShard(view: MovesView, groupOf: GroupOf) {
  const { configs, current, next } = view.controller;
  const owners = configs[current]!.shards;
  for (let shard = 0; shard < owners.length; shard++) {
    const owner = owners[shard]!;
    if (owner === 0) continue;
    if (next !== null && next.moves.some((identity) => identity.shard === shard)) continue;
    const phase = groupOf(view, owner)?.shards[shard]!.phase ?? 'absent';
    if (phase !== 'serving') return { shard, owner, phase };
  }
  return null;
}

export function explainUnaffectedServed(view: MovesView, groupOf: GroupOf = modelGroupOf): string {
  const unserved = unservedShard(view, groupOf);
  if (unserved === null) return 'every shard that does not move is served';
  const { shard, owner, phase } = unserved;
  return `shard ${shard} does not move, but its owner gid ${owner} in configuration ` +
    `${view.controller.current} holds it ${phase}`;
}

/**
 * GarbageBound: a group keeps KV data only for shards it serves or holds frozen for a move of
 * the intent (a frozen source has not yet had its delete confirmed), or keeps frozen because
 * the published configuration leaves the shard unassigned (its data waits there, CONTRACT).
 * A frozen record of any other identity is data nobody will ever delete: once its move is
 * published or abandoned, the source must already have dropped it. An absent record keeps no
 * data at all.
 */
export function garbageBound(view: MovesView): boolean {
  const { configs, current, next } = view.controller;
  const moves = next?.moves ?? [];
  const owners = configs[current]!.shards;
  return view.groups.every((group) =>
    group.shards.every((record, shard) => {
      // Staged parts are data too: only a move in flight may still install them.
      const staged = record.staged;
      if (staged && !moves.some((identity) => sameIdentity(identity, staged.identity))) {
        return false;
      }
      if (record.phase === 'absent') return record.kv.size === 0 && record.dedup.size === 0;
      if (record.phase === 'serving') return true;
      const parked = record.identity?.dst === 0 && owners[shard] === 0;
      return parked || moves.some((identity) => sameIdentity(identity, record.identity));
    }));
}

export function explainGarbageBound(view: MovesView): string {
  const moves = view.controller.next?.moves ?? [];
  for (const group of view.groups) {
    for (const [shard, record] of group.shards.entries()) {
      const staged = record.staged;
      if (staged && !moves.some((identity) => sameIdentity(identity, staged.identity))) {
        return `gid ${group.gid} keeps parts of shard ${shard} staged for ` +
          `${moveText(staged.identity)}, which is no longer in flight: nobody will install them`;
      }
      if (record.phase === 'absent' && (record.kv.size > 0 || record.dedup.size > 0)) {
        return `gid ${group.gid} keeps data of shard ${shard}, which it no longer holds`;
      }
      if (record.phase !== 'frozen' || record.identity === null) continue;
      if (moves.some((identity) => sameIdentity(identity, record.identity))) continue;
      if (record.identity.dst === 0) continue;
      return `gid ${group.gid} keeps shard ${shard} frozen for ${moveText(record.identity)}, ` +
        'which is no longer in flight: nobody will delete it';
    }
  }
  return 'a group keeps data nobody will delete';
}
