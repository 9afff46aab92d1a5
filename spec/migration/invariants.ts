/**
 * The `migration` model's invariants, named as in DESIGN §3. They are listed in the order the
 * checker tests them, so that a state violating several reports the most specific one.
 */
import type { Invariant } from '../../checker/model.js';
import { sameIdentity } from '../group/digest.js';
import { readValue } from '../group/group.js';
import type { GroupState } from '../group/types.js';
import { keyOf, scriptRequest, type MigrationBounds, type MigrationState } from './model-state.js';

export const invariantNames = [
  'StaleRejected',
  'ConfigsInOrder',
  'AtMostOneServer',
  'NoLostWrite',
  'ExactlyOnce',
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

/** A message of an older migration identity changes nothing. */
const staleRejected = (state: MigrationState) => !state.history.staleChanged;

/**
 * A group never applies configuration N+2 before N+1: while `current` is N, no group takes
 * part in a migration of an epoch beyond N+1.
 */
function configsInOrder(state: MigrationState): boolean {
  const current = state.controller.current;
  return state.groups.every((group) =>
    group.shards.every((record) => (record.identity?.epoch ?? 0) <= current + 1));
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
 * Every acknowledged write is in the state of its shard's current holder, unless a later put
 * replaced it in the order the effects happened (the ghost value no longer contains it).
 */
function noLostWrite(bounds: MigrationBounds, state: MigrationState): boolean {
  for (let client = 0; client < state.clients.length; client++) {
    const done = state.clients[client]!.done;
    for (let seq = 0; seq < done; seq++) {
      const request = scriptRequest(bounds, client, seq);
      if (request.op === 'get') continue;
      const shard = (client + seq) % bounds.shards;
      if (!state.history.ghost[shard]!.includes(request.value)) continue;
      const holder = holderOf(state.groups, shard);
      if (holder === null) return false;
      const value = readValue(holder.shards[shard]!.kv, keyOf(shard, bounds.shards));
      if (!value.includes(request.value)) return false;
    }
  }
  return true;
}

/** Each (client, seq) takes effect at most once and every reply carries the first result. */
function exactlyOnce(bounds: MigrationBounds, state: MigrationState): boolean {
  const { applied, first } = state.history;
  if (applied.some((count) => count > 1)) return false;
  return state.clients.every((client, index) =>
    client.results.every((result, seq) => first[index * bounds.ops + seq] === result));
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
    { name: 'StaleRejected', holds: staleRejected },
    { name: 'ConfigsInOrder', holds: configsInOrder },
    { name: 'AtMostOneServer', holds: atMostOneServer },
    { name: 'NoLostWrite', holds: (state) => noLostWrite(bounds, state) },
    { name: 'ExactlyOnce', holds: (state) => exactlyOnce(bounds, state) },
    { name: 'UnaffectedServed', holds: unaffectedServed },
    { name: 'GarbageBound', holds: garbageBound },
  ];
}
