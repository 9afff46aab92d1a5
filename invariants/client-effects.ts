/**
 * The invariants about what clients' requests did (DESIGN §3), over proof-only history that
 * the `migration` model keeps as the groups answer (as ongardie/raft.tla marks its history
 * variables): `ghost[s]`, the value of shard s's key under the writes that took effect, in
 * the order they took effect; per write slot (client c's request i at c * ops + i) how
 * often it took effect, its first result ('' for ok: a write answers no value) and whether
 * that effect was the client's replacement request; and two flags set by the step that
 * answered. A get takes no effect and has no slot: ReadsCurrent checks each of its answers.
 *
 * The runtime has none of this: no live server knows which writes took effect in which order
 * across groups. So the simulator checks its clients' history at the end of a run instead
 * (verify/simulate/write-checks.ts: every acknowledged write's unique token is in the value
 * the holder keeps, none twice; and lincheck), and conform checks the history's
 * linearizability: those read the clients' call and return times, which the model's clients
 * do not have. Both read a key's value where `holderOf` says it is.
 */
import { key2shard } from '../spec/group/digest.js';
import { readValue } from '../spec/group/group.js';
import type { ClientOperation, ShardState } from '../spec/group/types.js';
import { holderOf, type GroupView, type ShardView } from './shard-view.js';

export interface EffectHistory {
  readonly ghost: readonly string[];
  readonly applied: readonly number[];
  readonly first: readonly (string | null)[];
  readonly firstReused: readonly boolean[];
  /** Some Get's answer was another value than ghost's at that point. */
  readonly staleRead: boolean;
  /** Some client request was answered by a copy that was not serving (frozen or deleted). */
  readonly unservedAnswer: boolean;
}

export interface ClientView {
  /** The results the client received, one per acknowledged request. */
  readonly results: readonly string[];
  /** The seq whose request the client replaced by another under the same seq, or -1. */
  readonly reusedSeq: number;
}

export interface EffectsView {
  readonly groups: readonly GroupView<ShardView & Pick<ShardState, 'kv'>>[];
  readonly clients: readonly ClientView[];
  readonly history: EffectHistory;
}

/** The model's clients: how many, their fixed scripts, and the one key of each shard. */
export interface ScriptReading {
  readonly shards: number;
  readonly clients: number;
  readonly ops: number;
  keyOf(shard: number): string;
  requestOf(client: number, seq: number, reused: boolean): {
    readonly op: ClientOperation; readonly key: string;
  };
}

const quoted = (value: string) => JSON.stringify(value);

/**
 * NoLostWrite: the current holder's value of every key is the sequential application of the
 * writes that took effect (ghost): no acknowledged write is lost, none is applied twice or out
 * of order, a put replaces and an append appends. A shard with data and no holder has lost it.
 */
export function noLostWrite(script: ScriptReading, view: EffectsView): boolean {
  for (let shard = 0; shard < script.shards; shard++) {
    const expected = view.history.ghost[shard]!;
    const holder = holderOf(view.groups, shard);
    if (holder === null) {
      if (expected !== '') return false;
      continue;
    }
    if (readValue(holder.shards[shard]!.kv, script.keyOf(shard)) !== expected) return false;
  }
  return true;
}

export function explainNoLostWrite(script: ScriptReading, view: EffectsView): string {
  for (let shard = 0; shard < script.shards; shard++) {
    const expected = view.history.ghost[shard]!;
    const key = quoted(script.keyOf(shard));
    const holder = holderOf(view.groups, shard);
    if (holder === null) {
      if (expected === '') continue;
      return `no group holds shard ${shard}, whose key ${key} the writes that took effect ` +
        `made ${quoted(expected)}`;
    }
    const actual = readValue(holder.shards[shard]!.kv, script.keyOf(shard));
    if (actual === expected) continue;
    return `key ${key} of shard ${shard}: the writes that took effect make ${quoted(expected)}, ` +
      `its holder gid ${holder.gid} has ${quoted(actual)}`;
  }
  return 'every holder has the value of the writes that took effect';
}

/** ReadsCurrent: every answer to a Get was the value of the writes before it. */
export const readsCurrent = (view: EffectsView) => !view.history.staleRead;

/**
 * An acknowledged Get whose value is not the writes' value now (the flag was set at the step
 * that answered it, when the value may have been another; the reply may also have been lost).
 */
export function explainReadsCurrent(script: ScriptReading, view: EffectsView): string {
  const { ghost } = view.history;
  for (const [client, record] of view.clients.entries()) {
    for (const [seq, result] of record.results.entries()) {
      const request = script.requestOf(client, seq, record.reusedSeq === seq);
      if (request.op !== 'get') continue;
      const shard = key2shard(request.key, script.shards);
      if (result === ghost[shard]) continue;
      return `client ${client}'s Get ${seq} of key ${quoted(request.key)} (shard ${shard}) ` +
        `returned ${quoted(result)}, the writes that took effect make ${quoted(ghost[shard]!)}`;
    }
  }
  return 'a Get returned another value than the writes before it made';
}

/** OnlyServerAnswers: only a serving copy answers a client, a frozen or deleted one never. */
export const onlyServerAnswers = (view: EffectsView) => !view.history.unservedAnswer;

export const explainOnlyServerAnswers = () => 'a frozen or deleted copy answered a client request';

/**
 * ExactlyOnce: each write (client, seq) takes effect at most once, every reply carries the
 * first result, and a write that a client saw acknowledged is the one that took effect (not
 * another request under the same seq). A get takes no effect (ReadsCurrent checks it).
 */
export function exactlyOnce(script: ScriptReading, view: EffectsView): boolean {
  const { applied, first, firstReused } = view.history;
  if (applied.some((count) => count > 1)) return false;
  return view.clients.every((client, index) =>
    client.results.every((result, seq) => {
      const reused = client.reusedSeq === seq;
      if (script.requestOf(index, seq, reused).op === 'get') return true;
      const slot = index * script.ops + seq;
      return first[slot] === result && firstReused[slot] === reused;
    }));
}

export function explainExactlyOnce(script: ScriptReading, view: EffectsView): string {
  const { applied, first, firstReused } = view.history;
  const twice = applied.findIndex((count) => count > 1);
  if (twice >= 0) {
    const [client, seq] = [Math.floor(twice / script.ops), twice % script.ops];
    return `client ${client}'s request ${seq} took effect twice`;
  }
  for (const [client, record] of view.clients.entries()) {
    for (const [seq, result] of record.results.entries()) {
      if (script.requestOf(client, seq, record.reusedSeq === seq).op === 'get') continue;
      const slot = client * script.ops + seq;
      if (first[slot] === null) {
        return `client ${client}'s request ${seq} was acknowledged but never took effect`;
      }
      if (first[slot] !== result) {
        return `client ${client} got ${quoted(result)} for request ${seq}, whose first effect ` +
          `returned ${quoted(first[slot]!)}`;
      }
      if (firstReused[slot] !== (record.reusedSeq === seq)) {
        return `client ${client}'s request ${seq} was acknowledged, but the request that ` +
          'took effect under its seq is another one';
      }
    }
  }
  return 'every request took effect at most once and every reply is its first result';
}
