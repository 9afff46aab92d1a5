/**
 * The replica group's apply function: one committed command in, the new state and the
 * command's result out. Pure and deterministic, so every replica of a Raft group that applies
 * the same log reaches the same state and answers the same results; the runtime calls it from
 * its apply loop and the `migration` model calls it as one atomic step. It never throws on
 * what a client or a peer sent: a malformed or unknown command is refused with a result.
 *
 * A switch, not ts-pattern: the model calls this for nearly every successor; `never` keeps
 * the switch exhaustive.
 */
import type { MigrationBugs } from '../migration/bugs.js';
import { applyClientRequest, expireSessions } from './client-requests.js';
import {
  deleteShard,
  fetchPart,
  freezeShard,
  installShard,
  precopyShard,
  queryShard,
  unfreezeShard,
} from './migration-steps.js';
import { defaultPartLimits } from './image-cut.js';
import { installParts, stagePart } from './image-parts.js';
import type { SizeLimits } from './size-policy.js';
import type {
  Applied, GroupCommand, GroupState, Identity, ImageDelta, PartsManifest,
} from './types.js';

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** An ordered map (the runtime rebuilds an image's maps from what the network carried). */
const isMap = (value: unknown) => isObject(value) && 'entries' in value && 'set' in value &&
  typeof value.entries === 'function' && typeof value.set === 'function';

const badManifest = (manifest: PartsManifest) => !isObject(manifest) ||
  typeof manifest.digest !== 'string' || !Number.isSafeInteger(manifest.sessionFloor);

/** What a peer sent has the shape its type promises (it may come from a corrupt entry). */
function malformedPayload(command: GroupCommand): boolean {
  switch (command.type) {
    case 'client':
      return !isObject(command.request);
    case 'install': {
      const image = command.image;
      if (image === null) return false;
      return !isObject(image) || !isMap(image.kv) || !isMap(image.dedup) ||
        typeof image.digest !== 'string' || !Number.isSafeInteger(image.sessionFloor);
    }
    case 'stage-part': {
      const part = command.part;
      return badManifest(command.manifest) || !isObject(part) || !isMap(part.kv) ||
        !isMap(part.dedup);
    }
    case 'install-parts':
      return badManifest(command.manifest) || malformedDelta(command.delta);
    case 'fetch-part':
      return typeof command.digest !== 'string' || !Number.isSafeInteger(command.index);
    case 'delete': {
      const receipt = command.receipt;
      if (receipt === null) return false;
      return !isObject(receipt) || !isObject(receipt.identity) ||
        typeof receipt.digest !== 'string';
    }
    default:
      return false;
  }
}

/** A delta from the wire: null, or its maps and lists of removed keys. */
function malformedDelta(delta: ImageDelta | undefined): boolean {
  if (delta === undefined) return false;
  return !isObject(delta) || typeof delta.digest !== 'string' ||
    !Number.isSafeInteger(delta.sessionFloor) || !isMap(delta.kv) || !isMap(delta.dedup) ||
    !Array.isArray(delta.kvRemoved) || !Array.isArray(delta.dedupRemoved);
}

/** A migration command's identity must name a shard of this group by number. */
function badIdentity(group: GroupState, identity: Identity): boolean {
  if (!isObject(identity)) return true;
  const { shard, epoch, src, dst } = identity;
  const numbers = [shard, epoch, src, dst].every((value) => Number.isSafeInteger(value));
  return !numbers || shard < 0 || shard >= group.shards.length;
}

/** The budget a source cuts its large images by (size-policy.ts). */
const partBytes = (limits: SizeLimits) =>
  limits.imagePartBytes ?? defaultPartLimits.partBytesMax;

/** `limits`: the size policy, the same on every replica (size-policy.ts). */
export function applyGroupCommand(
  group: GroupState,
  command: GroupCommand,
  bugs: MigrationBugs,
  limits: SizeLimits,
): Applied {
  const refused: Applied = { state: group, result: { type: 'error', error: 'bad-request' } };
  if (!isObject(command) || malformedPayload(command)) return refused;
  if ('identity' in command && badIdentity(group, command.identity)) return refused;
  switch (command.type) {
    case 'client':
      return applyClientRequest(group, command.request, bugs, limits);
    case 'freeze':
      return freezeShard(group, command.identity, bugs, partBytes(limits));
    case 'precopy':
      return precopyShard(group, command.identity, bugs, partBytes(limits));
    case 'fetch-part':
      return fetchPart(group, command.identity, command.digest, partBytes(limits),
        command.index, bugs);
    case 'install':
      return installShard(group, command.identity, command.image, bugs);
    case 'stage-part':
      return stagePart(group, command.identity, command.manifest, command.index, command.part,
        bugs);
    case 'install-parts':
      return installParts(group, command.identity, command.manifest, command.delta ?? null, bugs);
    case 'delete':
      return deleteShard(group, command.identity, command.receipt, bugs);
    case 'unfreeze':
      return unfreezeShard(group, command.identity, bugs);
    case 'query-shard':
      return queryShard(group, command.shard, partBytes(limits));
    case 'expire-sessions':
      return expireSessions(group, command.below);
    default:
      return unknownCommand(command, refused);
  }
}

/** An unknown command type (a newer peer, a corrupt entry) is refused, not thrown. */
function unknownCommand(_command: never, refused: Applied): Applied {
  return refused;
}

/** The shards the group serves, ascending (what `cluster status` reports). */
export function servedShards(group: GroupState): number[] {
  const served: number[] = [];
  group.shards.forEach((record, shard) => {
    if (record.phase === 'serving') served.push(shard);
  });
  return served;
}
