/**
 * Why a migration invariant fails in a state (the checker's `explain` hook): which shard,
 * which groups, which key and values, in the labels' numbering (shards 0..S-1, groups by gid,
 * clients by session id; printing.ts). Called on a state that violates the invariant; each
 * names the first witness in a fixed order (shards, groups, clients ascending). The flags of
 * the history are read in the state right after the step that set them, where the values the
 * witness quotes are still those of that step.
 */
import type { Identity } from '../../spec/controller/types.js';
import { key2shard, sameIdentity } from '../../spec/group/digest.js';
import { readValue } from '../../spec/group/group.js';
import { holderOf } from './invariants.js';
import { keyOf, scriptRequest, type MigrationBounds, type MigrationState } from './model-state.js';

const quoted = (value: string) => JSON.stringify(value);
const moveText = (identity: Identity) =>
  `the move of shard ${identity.shard} at epoch ${identity.epoch} ` +
  `(gid ${identity.src} -> gid ${identity.dst})`;

export function explainAtMostOneServer(state: MigrationState): string {
  const shardCount = state.groups[0]?.shards.length ?? 0;
  for (let shard = 0; shard < shardCount; shard++) {
    const serving = state.groups
      .filter((group) => group.shards[shard]!.phase === 'serving')
      .map((group) => `gid ${group.gid}`);
    if (serving.length > 1) return `shard ${shard} is served by ${serving.join(' and ')}`;
  }
  return 'every shard has at most one server';
}

export function explainNoLostWrite(bounds: MigrationBounds, state: MigrationState): string {
  for (let shard = 0; shard < bounds.shards; shard++) {
    const expected = state.history.ghost[shard]!;
    const key = quoted(keyOf(shard, bounds.shards));
    const holder = holderOf(state.groups, shard);
    if (holder === null) {
      if (expected === '') continue;
      return `no group holds shard ${shard}, whose key ${key} the writes that took effect ` +
        `made ${quoted(expected)}`;
    }
    const actual = readValue(holder.shards[shard]!.kv, keyOf(shard, bounds.shards));
    if (actual === expected) continue;
    return `key ${key} of shard ${shard}: the writes that took effect make ${quoted(expected)}, ` +
      `its holder gid ${holder.gid} has ${quoted(actual)}`;
  }
  return 'every holder has the value of the writes that took effect';
}

/** The Get whose first result is not the value of the writes before it (at the flag's step). */
export function explainReadsCurrent(bounds: MigrationBounds, state: MigrationState): string {
  const { first, firstReused, ghost } = state.history;
  for (let client = 0; client < bounds.clients; client++) {
    for (let seq = 0; seq < bounds.ops; seq++) {
      const slot = client * bounds.ops + seq;
      const result = first[slot];
      const request = scriptRequest(bounds, client, seq, firstReused[slot]);
      if (result === null || result === undefined || request.op !== 'get') continue;
      const shard = key2shard(request.key, bounds.shards);
      if (result === ghost[shard]) continue;
      return `client ${client}'s Get ${seq} of key ${quoted(request.key)} (shard ${shard}) ` +
        `returned ${quoted(result)}, the writes that took effect make ${quoted(ghost[shard]!)}`;
    }
  }
  return 'a Get returned another value than the writes before it made';
}

export function explainExactlyOnce(bounds: MigrationBounds, state: MigrationState): string {
  const { applied, first, firstReused } = state.history;
  const twice = applied.findIndex((count) => count > 1);
  if (twice >= 0) {
    const [client, seq] = [Math.floor(twice / bounds.ops), twice % bounds.ops];
    return `client ${client}'s request ${seq} took effect twice`;
  }
  for (const [client, record] of state.clients.entries()) {
    for (const [seq, result] of record.results.entries()) {
      const slot = client * bounds.ops + seq;
      if (first[slot] !== result) {
        const firstText = first[slot] === null ? 'none' : quoted(first[slot]!);
        return `client ${client} got ${quoted(result)} for request ${seq}, whose first effect ` +
          `returned ${firstText}`;
      }
      if (firstReused[slot] !== (record.reusedSeq === seq)) {
        return `client ${client}'s request ${seq} was acknowledged, but the request that ` +
          'took effect under its seq is another one';
      }
    }
  }
  return 'every request took effect at most once and every reply is its first result';
}

/** Who holds which digest for `identity`: src's frozen image, dst's receipt, driver, network. */
function imageDigests(state: MigrationState, identity: Identity, index: number) {
  const found: { who: string; digest: string }[] = [];
  const record = (gid: number) =>
    gid === 0 ? null : state.groups[gid - 1]!.shards[identity.shard]!;
  const src = record(identity.src);
  if (src?.frozenDigest && sameIdentity(src.identity, identity)) {
    found.push({ who: `gid ${identity.src} froze`, digest: src.frozenDigest });
  }
  const receipt = record(identity.dst)?.receipt;
  if (receipt && sameIdentity(receipt.identity, identity)) {
    found.push({ who: `gid ${identity.dst}'s receipt has`, digest: receipt.digest });
  }
  const progress = state.driver.progress[index];
  if (progress?.step === 'install' && progress.image) {
    found.push({ who: 'the driver holds', digest: progress.image.digest });
  }
  for (const copy of state.network) {
    const command = copy.command;
    if (command.type !== 'install' || !sameIdentity(command.identity, identity)) continue;
    if (command.image) found.push({ who: 'the network carries', digest: command.image.digest });
  }
  return found;
}

export function explainOneImagePerIdentity(state: MigrationState): string {
  for (const [index, identity] of (state.controller.next?.moves ?? []).entries()) {
    const found = imageDigests(state, identity, index);
    if (new Set(found.map(({ digest }) => digest)).size <= 1) continue;
    const held = found.map(({ who, digest }) => `${who} ${digest}`).join(', ');
    return `${moveText(identity)} binds two images: ${held}`;
  }
  return 'every identity binds one image';
}

export function explainUnaffectedServed(state: MigrationState): string {
  const { configs, current, next } = state.controller;
  const owners = configs[current]!.shards;
  for (const [shard, owner] of owners.entries()) {
    if (owner === 0 || next?.moves.some((identity) => identity.shard === shard)) continue;
    const phase = state.groups[owner - 1]!.shards[shard]!.phase;
    if (phase === 'serving') continue;
    return `shard ${shard} does not move, but its owner gid ${owner} in configuration ` +
      `${current} holds it ${phase}`;
  }
  return 'every shard that does not move is served';
}

export function explainGarbageBound(state: MigrationState): string {
  const moves = state.controller.next?.moves ?? [];
  for (const group of state.groups) {
    for (const [shard, record] of group.shards.entries()) {
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
