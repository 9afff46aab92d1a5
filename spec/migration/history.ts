/**
 * Proof-only history (as ongardie/raft.tla marks its history variables): what the invariants
 * need to know about the past that no protocol state records. Updated only when a group's
 * state actually changed, never read by the protocol.
 */
import { key2shard } from '../group/digest.js';
import type { ClientRequest } from '../group/types.js';
import type { History, MigrationBounds } from './model-state.js';

/** A client request took effect at some group with result `result`. */
export function recordClientEffect(
  history: History,
  bounds: MigrationBounds,
  request: ClientRequest,
  result: string,
): History {
  const slot = request.client * bounds.ops + request.seq;
  const applied = history.applied.slice();
  applied[slot] = Math.min(2, applied[slot]! + 1);
  let first = history.first;
  if (first[slot] === null) {
    const copy = first.slice();
    copy[slot] = result;
    first = copy;
  }
  let ghost = history.ghost;
  if (request.op !== 'get') {
    const shard = key2shard(request.key, bounds.shards);
    const copy = ghost.slice();
    copy[shard] = request.op === 'put' ? request.value : copy[shard]! + request.value;
    ghost = copy;
  }
  return { ...history, applied, first, ghost };
}
