/**
 * The checks on written values at the end of a run, against the groups' latest applied
 * state. Every value a client writes is a unique token `<c<client>.<n>>`: a put sets the key
 * to its token, an append adds its token, so a key's value says which writes it holds.
 *
 * - NoLostWrite (DESIGN §3): an acknowledged append's token is in the key's value unless a
 *   put may have overwritten it (a put that had not returned when the append was called, or
 *   whose outcome is unknown); an acknowledged put's token begins the value unless another
 *   write may have followed it.
 * - ExactlyOnce (DESIGN §3): no token appears twice (a retried append applied twice).
 *
 * A key's value is read where the protocol keeps it (the library's `holderOf`, which the
 * model's NoLostWrite reads too): in the group that serves its shard, or, when none does (a
 * move in flight, or every group left), in the group holding it frozen under the newest
 * migration identity.
 *
 * These are the runtime's form of the model's NoLostWrite and ExactlyOnce
 * (invariants/client-effects.ts): the model compares the holder's value with the writes that
 * took effect, in the order they did, a proof-only history no live server has; the clients'
 * history has call and return times instead, so this reads which writes must be in the value.
 */
import { key2shard, readValue, type GroupState } from '../../spec/group/index.js';
import { holderOf } from '../../invariants/shard-view.js';
import type { RecordedOperation } from './history.js';
import type { Violation } from './safety-monitor.js';

const tokenPattern = /<[^<>]*>/g;

export function writeToken(client: number, count: number): string {
  return `<c${client}.${count}>`;
}

/** The value each key holds in the groups' latest states. */
export function finalValues(
  groups: ReadonlyMap<number, GroupState>,
  keys: readonly string[],
  shardCount: number,
): Map<string, string> {
  const values = new Map<string, string>();
  for (const key of keys) {
    const shard = key2shard(key, shardCount);
    const holder = holderOf(groups.values(), shard);
    values.set(key, holder === null ? '' : readValue(holder.shards[shard]!.kv, key));
  }
  return values;
}

/** The token a written value carries (large-values.ts pads it; the padding has none). */
function tokenOf(value: string): string {
  return value.match(tokenPattern)?.[0] ?? value;
}

export function checkWrites(
  history: readonly RecordedOperation[],
  values: ReadonlyMap<string, string>,
): Violation | null {
  for (const [key, value] of values) {
    const tokens = value.match(tokenPattern) ?? [];
    // The value as its tokens (the same text unless --value-bytes padded them).
    const shown = JSON.stringify(tokens.join(''));
    const seen = new Set<string>();
    for (const token of tokens) {
      if (seen.has(token)) {
        return {
          invariant: 'ExactlyOnce',
          detail: `key ${JSON.stringify(key)} holds the write ${token} twice: ${tokens.join('')}`,
        };
      }
      seen.add(token);
    }
    const writes = history.filter((operation) => operation.key === key && operation.op !== 'get');
    const lost = lostWrite(writes, tokens, seen);
    if (lost !== undefined) {
      return {
        invariant: 'NoLostWrite',
        detail: `the acknowledged ${lost.op} of ${tokenOf(lost.value!)} on key ` +
          `${JSON.stringify(key)} by client ${lost.client} is not in its value ${shown}`,
      };
    }
  }
  return null;
}

/** When a write may have taken effect at the latest: its return, or never known. */
function latestEffect(operation: RecordedOperation): number {
  return operation.outcome === 'ok' ? operation.return! : Number.POSITIVE_INFINITY;
}

function lostWrite(
  writes: readonly RecordedOperation[],
  tokens: readonly string[],
  present: ReadonlySet<string>,
): RecordedOperation | undefined {
  const lastPutEffect = Math.max(-1, ...writes
    .filter((write) => write.op === 'put').map(latestEffect));
  for (const write of writes) {
    if (write.outcome !== 'ok') continue;
    if (write.op === 'append') {
      if (!present.has(tokenOf(write.value!)) && lastPutEffect < write.call) return write;
      continue;
    }
    if (tokens[0] === tokenOf(write.value!)) continue;
    const mayFollow = writes.some((other) => other !== write && latestEffect(other) > write.call);
    if (!mayFollow) return write;
  }
  return undefined;
}
