/**
 * Proof-only history (as ongardie/raft.tla marks its history variables): what the invariants
 * need to know about the past that no protocol state records. Updated by the model when a
 * group answers a client, never read by the protocol.
 */
import { key2shard } from '../../spec/group/digest.js';
import type { ClientRequest, ShardState } from '../../spec/group/types.js';
import type { History, MigrationBounds } from './model-state.js';
import { scriptRequest } from './model-state.js';

/** The copy's record of the request's shard before it answered, and its answer. */
export interface ClientAnswer {
  readonly record: ShardState;
  readonly request: ClientRequest;
  readonly value: string;
}

/**
 * A group answered a client request with a value. A first answer to a (client, seq) that
 * the copy's dedup table did not already hold is an effect: the request took effect there
 * and then, so a write extends the sequential history (ghost) and a Get must have read
 * ghost's value at that point. A copy that was not serving must not answer at all.
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
  const shard = key2shard(request.key, bounds.shards);
  const before = next.ghost[shard]!;
  if (request.op === 'get') {
    return value === before || next.staleRead ? next : { ...next, staleRead: true };
  }
  const ghost = next.ghost.slice();
  ghost[shard] = request.op === 'put' ? request.value : before + request.value;
  return { ...next, ghost };
}
