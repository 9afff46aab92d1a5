/**
 * Proof-only history (as ongardie/raft.tla marks its history variables): what the invariants
 * need to know about the past that no protocol state records. Updated by the model when a
 * group answers a client, never read by the protocol.
 */
import { key2shard } from '../../spec/group/digest.js';
import type { ClientRequest, GroupResult, ShardState } from '../../spec/group/types.js';
import type { History, MigrationBounds } from './model-state.js';
import { scriptRequest } from './model-state.js';

/** The copy's record of the request's shard before it answered, and its answer. */
export interface ClientAnswer {
  readonly record: ShardState;
  readonly request: ClientRequest;
  /** What a get read; '' for a write, answered only `ok`. */
  readonly value: string;
}

/** The answer a group gave to `request`, or null when it refused it (no history to note). */
export function clientAnswer(
  record: ShardState,
  request: ClientRequest,
  result: GroupResult,
): ClientAnswer | null {
  if (result.type === 'value') return { record, request, value: result.value };
  return result.type === 'ok' ? { record, request, value: '' } : null;
}

/**
 * A group answered a client request (a get with a value, a write with ok). A copy that was
 * not serving must not answer at all. A get takes no effect: each of its answers, retries
 * included (a get leaves no dedup record, so a retry reads again), must be ghost's value at
 * that point. A write's first answer for a (client, seq) that the copy's dedup table did not
 * already hold is an effect: the write took effect there and then, and extends the
 * sequential history (ghost).
 */
export function recordClientAnswer(
  history: History,
  bounds: MigrationBounds,
  answer: ClientAnswer,
): History {
  const { record, request, value } = answer;
  let next = history;
  if (record.phase !== 'serving' && !history.unservedAnswer) {
    next = { ...next, unservedAnswer: true };
  }
  const shard = key2shard(request.key, bounds.shards);
  const before = next.ghost[shard]!;
  if (request.op === 'get') {
    return value === before || next.staleRead ? next : { ...next, staleRead: true };
  }
  const retry = record.dedup.get(request.client)?.seq === request.seq;
  if (retry) return next;
  const slot = request.client * bounds.ops + request.seq;
  const applied = next.applied.slice();
  applied[slot] = Math.min(2, applied[slot]! + 1);
  next = { ...next, applied };
  if (next.first[slot] === null) {
    const first = next.first.slice();
    first[slot] = value;
    const reused = scriptRequest(bounds, request.client, request.seq, true);
    const firstReused = next.firstReused.slice();
    firstReused[slot] = request.op === reused.op && request.value === reused.value;
    next = { ...next, first, firstReused };
  }
  const ghost = next.ghost.slice();
  ghost[shard] = request.op === 'put' ? request.value : before + request.value;
  return { ...next, ghost };
}
