/**
 * Client Get / Put / Append at a replica group, with exactly-once semantics (DESIGN §3; Raft
 * dissertation §6.3). A request is served only while the group's record of the key's shard is
 * `serving`; otherwise the client gets ErrWrongGroup and asks the controller again.
 *
 * The dedup table is part of the shard (it moves with the image) and keeps, per client, the
 * latest write: its sequence number, the digest of the whole request and the first result.
 * A retry returns the first result and changes nothing; the same (client, seq) carrying a
 * different request is an `identity-conflict`; an older sequence number is `stale-request`
 * (the client already moved on, so this is a late network duplicate); a client below the
 * group's session floor is `session-expired` (its record is gone, so a late duplicate must
 * not be applied again). A put or append answers `ok`, never the value it left, so a record
 * stays a few words however large the value grows; a get answers the value read and leaves
 * no record (see applyClientRequest). A malformed request is refused (`bad-request`), never asserted: it is client
 * data, and one committed bad entry must not crash every replica. A put or append that would
 * leave the value over the size policy's limit (size-policy.ts) is refused `value-too-large`;
 * the refusal is recorded like a result, so a late duplicate of it is refused again even if
 * the value shrank meanwhile (the client was told nothing was written).
 */
import { castDraft, produce } from 'immer';
import { assert } from '../assert.js';
import type { MigrationBugs } from '../migration/bugs.js';
import { key2shard, requestDigest } from './digest.js';
import { readValue, withShard } from './group.js';
import { exceedsValueLimit, type SizeLimits } from './size-policy.js';
import type { Applied, ClientRequest, DedupRecord, GroupResult, GroupState } from './types.js';

const operations: readonly string[] = ['get', 'put', 'append'];

/** Why a request cannot be applied whatever the state, or null. */
function malformed(request: ClientRequest): boolean {
  if (!Number.isSafeInteger(request.client) || request.client < 0) return true;
  if (!Number.isSafeInteger(request.seq) || request.seq < 0) return true;
  if (!operations.includes(request.op)) return true;
  if (typeof request.key !== 'string' || typeof request.value !== 'string') return true;
  return request.op === 'get' && request.value !== '';
}

export function applyClientRequest(
  group: GroupState,
  request: ClientRequest,
  bugs: MigrationBugs,
  limits: SizeLimits,
): Applied {
  if (malformed(request)) return { state: group, result: { type: 'error', error: 'bad-request' } };
  const shard = key2shard(request.key, group.shards.length);
  const record = group.shards[shard]!;
  if (record.phase !== 'serving') {
    // frozen-source-serves-reads: a frozen copy answers a Get from its fixed data.
    if (bugs['frozen-source-serves-reads'] && record.phase === 'frozen' && request.op === 'get') {
      return { state: group, result: { type: 'value', value: readValue(record.kv, request.key) } };
    }
    return { state: group, result: { type: 'error', error: 'ErrWrongGroup' } };
  }
  // expiry-forgets-session: the group drops expired records but serves their clients anyway.
  if (request.client < group.sessionFloor && !bugs['expiry-forgets-session']) {
    return { state: group, result: { type: 'error', error: 'session-expired' } };
  }
  // one-seq-across-shards: the group keeps one record per client, whichever shard it is in.
  const previous = bugs['one-seq-across-shards']
    ? latestRecordOf(group, request.client)
    : record.dedup.get(request.client);
  if (previous !== undefined && previous.seq === request.seq) {
    // dedup-ignores-digest: another request under the same (client, seq) passes for a retry.
    if (previous.digest !== requestDigest(request) && !bugs['dedup-ignores-digest']) {
      return { state: group, result: { type: 'error', error: 'identity-conflict' } };
    }
    return { state: group, result: recordAnswer(previous) };
  }
  if (previous !== undefined && previous.seq > request.seq) {
    return { state: group, result: { type: 'error', error: 'stale-request' } };
  }
  const before = readValue(record.kv, request.key);
  // A get writes nothing, not even a dedup record. It takes no effect, so a retry (the reply
  // was lost) simply reads again: a read at a later point of the same operation, which is
  // still linearizable, since the client saw no earlier answer. Through the log or through
  // ReadIndex (impl/node/requests.ts), a get is answered the same way.
  if (request.op === 'get') return { state: group, result: { type: 'value', value: before } };
  // Only a write keeps the digest (a get, the bulk of reads through ReadIndex, needs none).
  const digest = requestDigest(request);
  const { client, seq } = request;
  if (exceedsValueLimit(before, request, limits)) {
    const result = 'value-too-large' as const;
    const dedup = record.dedup.set(client, { client, seq, digest, result });
    const state = withShard(group, shard, { ...record, dedup });
    return { state, result: { type: 'error', error: result } };
  }
  const after = request.op === 'put' ? request.value : before + request.value;
  const kv = record.kv.set(request.key, after);
  const dedup = record.dedup.set(client, { client, seq, digest, result: 'ok' });
  const others = bugs['one-seq-across-shards'] ? withoutRecordsOf(group, client) : group;
  const state = withShard(others, shard, { ...record, kv, dedup });
  assert(state.shards[shard]!.dedup.get(client)?.seq === seq, 'the write left no record');
  return { state, result: { type: 'ok' } };
}

/** What a dedup record answers every retry of its request. */
function recordAnswer(record: DedupRecord): GroupResult {
  if (record.result === 'ok') return { type: 'ok' };
  return { type: 'error', error: record.result };
}

/** one-seq-across-shards: the client's record of highest seq among the serving shards. */
function latestRecordOf(group: GroupState, client: number): DedupRecord | undefined {
  let latest: DedupRecord | undefined;
  for (const record of group.shards) {
    const held = record.phase === 'serving' ? record.dedup.get(client) : undefined;
    if (held !== undefined && (latest === undefined || held.seq > latest.seq)) latest = held;
  }
  return latest;
}

/**
 * one-seq-across-shards: the serving shards without the client's record, so that its one
 * record moves to the shard of its latest write. A shard that moves away later travels
 * without it, and its new owner applies a late duplicate of the client's earlier write
 * there again (frozen images stay as they are: their digest is bound).
 */
function withoutRecordsOf(group: GroupState, client: number): GroupState {
  let state = group;
  for (const [shard, record] of group.shards.entries()) {
    if (record.phase !== 'serving' || record.dedup.get(client) === undefined) continue;
    const dedup = record.dedup.filter((holder) => holder !== client);
    state = withShard(state, shard, { ...record, dedup });
  }
  return state;
}

/**
 * The result recorded for this very request (same client, seq and digest) in the dedup
 * table of its shard, which `group` serves; null when there is none. A retry of a request
 * that already applied is answered from it (retry-admission.ts), as applyClientRequest would
 * answer it, without a log entry.
 */
export function recordedResult(group: GroupState, request: ClientRequest): GroupResult | null {
  if (malformed(request)) return null;
  const record = group.shards[key2shard(request.key, group.shards.length)]!;
  if (record.phase !== 'serving' || request.client < group.sessionFloor) return null;
  const previous = record.dedup.get(request.client);
  if (previous === undefined || previous.seq !== request.seq) return null;
  if (previous.digest !== requestDigest(request)) return null;
  return recordAnswer(previous);
}

/**
 * Raises the session floor to `below` and drops the dedup records of the clients under it
 * from the shards this group serves. The decision is itself a log entry (or comes with an
 * installed image), so every replica expires the same sessions at the same point. Frozen
 * images stay untouched: their digest is bound into the receipt, and dst applies the floor
 * that travels with them.
 */
export function expireSessions(group: GroupState, below: number): Applied {
  if (!Number.isSafeInteger(below) || below < 0) {
    return { state: group, result: { type: 'error', error: 'bad-request' } };
  }
  if (below <= group.sessionFloor) return { state: group, result: { type: 'expired', records: 0 } };
  let records = 0;
  // immer: several shard records may change in one step; the draft reads as plain writes.
  const state = produce(group, (draft) => {
    draft.sessionFloor = below;
    for (const record of draft.shards) {
      if (record.phase !== 'serving') continue;
      const dedup = record.dedup.filter((client) => client >= below);
      records += record.dedup.size - dedup.size;
      record.dedup = castDraft(dedup);
    }
  });
  assert(state.sessionFloor === below, 'expireSessions: the floor was not raised');
  return { state, result: { type: 'expired', records } };
}
