/**
 * Client Get / Put / Append at a replica group, with exactly-once semantics (DESIGN §3; Raft
 * dissertation §6.3). A request is served only while the group's record of the key's shard is
 * `serving`; otherwise the client gets ErrWrongGroup and asks the controller again.
 *
 * The dedup table is part of the shard (it moves with the image) and keeps, per client, the
 * latest request: its sequence number, the digest of the whole request and the first result.
 * A retry returns the first result and changes nothing; the same (client, seq) carrying a
 * different request is an `identity-conflict`; an older sequence number is `stale-request`
 * (the client already moved on, so this is a late network duplicate); a client below the
 * group's session floor is `session-expired` (its record is gone, so a late duplicate must
 * not be applied again). Every operation's result is the key's value after it (for a get, the
 * value read).
 */
import { assert } from '../assert.js';
import { key2shard, requestDigest } from './digest.js';
import { readValue, withShard, writeValue } from './group.js';
import type { Applied, ClientRequest, DedupRecord, GroupOptions, GroupState } from './types.js';

function withRecord(dedup: readonly DedupRecord[], record: DedupRecord): DedupRecord[] {
  const result = dedup.filter((existing) => existing.client !== record.client);
  let index = 0;
  while (index < result.length && result[index]!.client < record.client) index++;
  result.splice(index, 0, record);
  return result;
}

export function applyClientRequest(
  group: GroupState,
  request: ClientRequest,
  options: GroupOptions = {},
): Applied {
  assert(Number.isInteger(request.seq) && request.seq >= 0, `bad seq ${request.seq}`);
  assert(request.op !== 'get' || request.value === '', 'a get carries no value');
  const shard = key2shard(request.key, group.shards.length);
  const record = group.shards[shard]!;
  if (record.phase !== 'serving') {
    return { state: group, result: { type: 'error', error: 'ErrWrongGroup' } };
  }
  // expiry-forgets-session: the group drops expired records but serves their clients anyway.
  if (request.client < group.sessionFloor && options.bug !== 'expiry-forgets-session') {
    return { state: group, result: { type: 'error', error: 'session-expired' } };
  }
  const digest = requestDigest(request);
  const previous = record.dedup.find((existing) => existing.client === request.client);
  if (previous !== undefined && previous.seq === request.seq) {
    if (previous.digest !== digest) {
      return { state: group, result: { type: 'error', error: 'identity-conflict' } };
    }
    return { state: group, result: { type: 'value', value: previous.result } };
  }
  if (previous !== undefined && previous.seq > request.seq) {
    return { state: group, result: { type: 'error', error: 'stale-request' } };
  }
  const before = readValue(record.kv, request.key);
  const after =
    request.op === 'get' ? before : request.op === 'put' ? request.value : before + request.value;
  const kv = request.op === 'get' ? record.kv : writeValue(record.kv, request.key, after);
  const dedup = withRecord(record.dedup, {
    client: request.client,
    seq: request.seq,
    digest,
    result: after,
  });
  const state = withShard(group, shard, { ...record, kv, dedup });
  return { state, result: { type: 'value', value: after } };
}

/**
 * Raises the session floor to `below` and drops the dedup records of the clients under it
 * from the shards this group serves. The decision is itself a log entry (or comes with an
 * installed image), so every replica expires the same sessions at the same point. Frozen
 * images stay untouched: their digest is bound into the receipt, and dst applies the floor
 * that travels with them.
 */
export function expireSessions(group: GroupState, below: number): Applied {
  assert(Number.isInteger(below) && below >= 0, `bad session floor ${below}`);
  if (below <= group.sessionFloor) return { state: group, result: { type: 'expired', records: 0 } };
  let state: GroupState = { ...group, sessionFloor: below };
  let records = 0;
  group.shards.forEach((record, shard) => {
    if (record.phase !== 'serving') return;
    const dedup = record.dedup.filter((existing) => existing.client >= below);
    if (dedup.length === record.dedup.length) return;
    records += record.dedup.length - dedup.length;
    state = withShard(state, shard, { ...record, dedup });
  });
  return { state, result: { type: 'expired', records } };
}
