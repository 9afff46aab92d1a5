/**
 * The `migration` model's invariants, named as in DESIGN §3. They are listed in the order the
 * checker tests them, so that a state violating several reports the most specific one.
 */
import type { Invariant } from '../../checker/model.js';
import { sameIdentity } from '../../spec/group/digest.js';
import { readValue } from '../../spec/group/group.js';
import type { GroupState } from '../../spec/group/types.js';
import { keyOf, type MigrationBounds, type MigrationState } from './model-state.js';
import {
  explainAtMostOneServer,
  explainExactlyOnce,
  explainGarbageBound,
  explainNoLostWrite,
  explainOneImagePerIdentity,
  explainReadsCurrent,
  explainUnaffectedServed,
} from './witnesses.js';

export const invariantNames = [
  'AtMostOneServer',
  'OnlyServerAnswers',
  'NoLostWrite',
  'ReadsCurrent',
  'ExactlyOnce',
  'OneImagePerIdentity',
  'UnaffectedServed',
  'GarbageBound',
] as const;

/**
 * The group whose record of `shard` is authoritative now: the serving one with the newest
 * epoch, else the frozen one with the newest epoch (between freeze and install), else none.
 */
export function holderOf(groups: readonly GroupState[], shard: number): GroupState | null {
  let best: GroupState | null = null;
  let bestRank = -1;
  for (const group of groups) {
    const record = group.shards[shard]!;
    if (record.phase === 'absent') continue;
    const rank = (record.phase === 'serving' ? 1 << 20 : 0) + (record.identity?.epoch ?? 0);
    if (rank > bestRank) {
      best = group;
      bestRank = rank;
    }
  }
  return best;
}

/** Per shard, at most one group accepts reads and writes. */
function atMostOneServer(state: MigrationState): boolean {
  const shardCount = state.groups[0]?.shards.length ?? 0;
  for (let shard = 0; shard < shardCount; shard++) {
    let serving = 0;
    for (const group of state.groups) if (group.shards[shard]!.phase === 'serving') serving++;
    if (serving > 1) return false;
  }
  return true;
}

/**
 * The current holder's value of every key is the sequential application of the writes that
 * took effect, in the order they took effect (ghost): no acknowledged write is lost, none is
 * applied twice or out of order, a put replaces and an append appends. A shard with data
 * and no holder has lost it.
 */
function noLostWrite(bounds: MigrationBounds, state: MigrationState): boolean {
  for (let shard = 0; shard < bounds.shards; shard++) {
    const expected = state.history.ghost[shard]!;
    const holder = holderOf(state.groups, shard);
    if (holder === null) {
      if (expected !== '') return false;
      continue;
    }
    if (readValue(holder.shards[shard]!.kv, keyOf(shard, bounds.shards)) !== expected) {
      return false;
    }
  }
  return true;
}

/** Every Get, when it took effect, returned the value of the sequential history there. */
const readsCurrent = (state: MigrationState) => !state.history.staleRead;

/** Only a serving copy answers a client: a frozen or deleted copy never does. */
const onlyServerAnswers = (state: MigrationState) => !state.history.unservedAnswer;

/**
 * Each (client, seq) takes effect at most once, every reply carries the first result, and
 * a request that a client saw acknowledged is the one that took effect (not another request
 * under the same seq).
 */
function exactlyOnce(bounds: MigrationBounds, state: MigrationState): boolean {
  const { applied, first, firstReused } = state.history;
  if (applied.some((count) => count > 1)) return false;
  return state.clients.every((client, index) =>
    client.results.every((result, seq) => {
      const slot = index * bounds.ops + seq;
      return first[slot] === result && firstReused[slot] === (client.reusedSeq === seq);
    }));
}

/**
 * A migration identity binds one image (DESIGN §3: the receipt binds the identity to the
 * image's digest): for every move of the intent, the digest src froze, the images the driver
 * holds or the network carries for it, and dst's receipt for it are one digest.
 */
function oneImagePerIdentity(state: MigrationState): boolean {
  const next = state.controller.next;
  if (next === null) return true;
  return next.moves.every((identity, index) => {
    const digests = new Set<string>();
    const src = identity.src === 0 ? null : state.groups[identity.src - 1]!.shards[identity.shard]!;
    if (src?.frozenDigest && sameIdentity(src.identity, identity)) digests.add(src.frozenDigest);
    const dst = identity.dst === 0 ? null : state.groups[identity.dst - 1]!.shards[identity.shard]!;
    const receipt = dst?.receipt;
    if (receipt && sameIdentity(receipt.identity, identity)) digests.add(receipt.digest);
    const progress = state.driver.progress[index];
    if (progress?.step === 'install' && progress.image) digests.add(progress.image.digest);
    for (const copy of state.network) {
      const command = copy.command;
      if (command.type !== 'install' || !sameIdentity(command.identity, identity)) continue;
      if (command.image) digests.add(command.image.digest);
    }
    return digests.size <= 1;
  });
}

/** A shard that the intent does not move is served by its owner in `current` throughout. */
function unaffectedServed(state: MigrationState): boolean {
  const { configs, current, next } = state.controller;
  const owners = configs[current]!.shards;
  for (let shard = 0; shard < owners.length; shard++) {
    const owner = owners[shard]!;
    if (owner === 0) continue;
    if (next !== null && next.moves.some((identity) => identity.shard === shard)) continue;
    if (state.groups[owner - 1]!.shards[shard]!.phase !== 'serving') return false;
  }
  return true;
}

/**
 * A group keeps KV data only for shards it serves or holds frozen for a move of the intent
 * (a frozen source has not yet had its delete confirmed), or keeps frozen because the
 * published configuration leaves the shard unassigned (its data waits there, CONTRACT). A
 * frozen record of any other identity is data nobody will ever delete: once its move is
 * published or abandoned, the source must already have dropped it. An absent record keeps no
 * data at all.
 */
function garbageBound(state: MigrationState): boolean {
  const { configs, current, next } = state.controller;
  const moves = next?.moves ?? [];
  const owners = configs[current]!.shards;
  return state.groups.every((group) =>
    group.shards.every((record, shard) => {
      if (record.phase === 'absent') return record.kv.size === 0 && record.dedup.size === 0;
      if (record.phase === 'serving') return true;
      const parked = record.identity?.dst === 0 && owners[shard] === 0;
      return parked || moves.some((identity) => sameIdentity(identity, record.identity));
    }));
}

export function migrationInvariants(bounds: MigrationBounds): Invariant<MigrationState>[] {
  return [
    { name: 'AtMostOneServer', holds: atMostOneServer, explain: explainAtMostOneServer },
    {
      name: 'OnlyServerAnswers',
      holds: onlyServerAnswers,
      explain: () => 'a frozen or deleted copy answered a client request',
    },
    {
      name: 'NoLostWrite',
      holds: (state) => noLostWrite(bounds, state),
      explain: (state) => explainNoLostWrite(bounds, state),
    },
    {
      name: 'ReadsCurrent',
      holds: readsCurrent,
      explain: (state) => explainReadsCurrent(bounds, state),
    },
    {
      name: 'ExactlyOnce',
      holds: (state) => exactlyOnce(bounds, state),
      explain: (state) => explainExactlyOnce(bounds, state),
    },
    {
      name: 'OneImagePerIdentity',
      holds: oneImagePerIdentity,
      explain: explainOneImagePerIdentity,
    },
    { name: 'UnaffectedServed', holds: unaffectedServed, explain: explainUnaffectedServed },
    { name: 'GarbageBound', holds: garbageBound, explain: explainGarbageBound },
  ];
}
