// The replica group's state machine (DESIGN §3): client operations with exactly-once dedup,
// freeze / install / delete and their refusals.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unboundedSizes } from '../../spec/group/size-policy.js';
import { noMigrationBugs, type MigrationBugs } from '../../spec/migration/bugs.js';
import {
  absentShard,
  applyGroupCommand,
  emptyGroup,
  sortedArrayMaps,
  SortedArrayMap,
  type GroupCommand,
  imageDigest,
  key2shard,
  requestDigest,
  servedShards,
  withShard,
  type ClientRequest,
  type GroupState,
  type Identity,
} from '../../spec/group/index.js';

// Key 'b' is in shard 0 and key 'c' in shard 1 of two ('b' = 98, 'c' = 99).
const servingBoth = (gid: number): GroupState => {
  let group = emptyGroup(gid, 2);
  const serving = { ...absentShard(sortedArrayMaps), phase: 'serving' as const };
  for (const shard of [0, 1]) group = withShard(group, shard, serving);
  return group;
};
const request = (
  client: number,
  seq: number,
  op: ClientRequest['op'],
  key: string,
  value = '',
): ClientRequest => ({ client, seq, op, key, value });
type Bugs = Partial<MigrationBugs>;
const applyCommand = (group: GroupState, command: GroupCommand, bugs: Bugs = {}) =>
  applyGroupCommand(group, command, { ...noMigrationBugs, ...bugs }, unboundedSizes);
const client = (group: GroupState, r: ClientRequest) =>
  applyCommand(group, { type: 'client', request: r });
const entriesOf = <K, V>(map: { entries(): Iterable<readonly [K, V]> }) =>
  [...map.entries()].map(([key, value]) => [key, value]);
const noDedup = SortedArrayMap.empty<number, never>();
const wrongGroup = { type: 'error', error: 'ErrWrongGroup' };
const move: Identity = { shard: 0, epoch: 2, src: 1, dst: 2 };

test('key2shard: first UTF-8 byte mod S, 0 for the empty key (CONTRACT)', () => {
  assert.is(key2shard('', 10), 0);
  assert.is(key2shard('a', 10), 97 % 10);
  assert.is(key2shard('é', 10), 0xc3 % 10);
  assert.is(key2shard('€', 10), 0xe2 % 10);
  assert.is(key2shard('😀', 10), 0xf0 % 10);
});

test('put and append answer ok; a get answers the value and changes nothing', () => {
  let group = servingBoth(1);
  const put = client(group, request(1, 0, 'put', 'b', 'x'));
  assert.equal(put.result, { type: 'ok' });
  group = put.state;
  const append = client(group, request(1, 1, 'append', 'b', 'y'));
  assert.equal(append.result, { type: 'ok' });
  group = append.state;
  const get = client(group, request(2, 0, 'get', 'b'));
  assert.equal(get.result, { type: 'value', value: 'xy' });
  assert.is(get.state, group, 'a get leaves no dedup record');
  assert.equal(client(group, request(2, 0, 'get', 'zz')).result, { type: 'value', value: '' });
  assert.equal(entriesOf(group.shards[0]!.kv), [['b', 'xy']]);
  assert.equal(servedShards(group), [0, 1]);
});

test('ExactlyOnce: a retry returns the first result and changes nothing', () => {
  const first = client(servingBoth(1), request(1, 0, 'append', 'b', 'x'));
  const second = client(first.state, request(2, 0, 'put', 'b', 'p'));
  const retry = client(second.state, request(1, 0, 'append', 'b', 'x'));
  assert.equal(retry.result, { type: 'ok' });
  assert.is(retry.state, second.state);
  assert.equal(entriesOf(second.state.shards[0]!.dedup).map(([, record]) => record), [
    { client: 1, seq: 0, digest: requestDigest(request(1, 0, 'append', 'b', 'x')), result: 'ok' },
    { client: 2, seq: 0, digest: requestDigest(request(2, 0, 'put', 'b', 'p')), result: 'ok' },
  ]);
});

test('identity-conflict: the same (client, seq) with another request', () => {
  const first = client(servingBoth(1), request(1, 0, 'append', 'b', 'x'));
  const conflict = client(first.state, request(1, 0, 'append', 'b', 'z'));
  assert.equal(conflict.result, { type: 'error', error: 'identity-conflict' });
  assert.is(conflict.state, first.state);
});

test('dedup keeps only the latest seq per client and shard; older seqs are stale', () => {
  let group = servingBoth(1);
  for (let seq = 0; seq < 3; seq++) {
    group = client(group, request(1, seq, 'append', 'b', String(seq))).state;
  }
  assert.is(group.shards[0]!.dedup.size, 1);
  assert.is(group.shards[0]!.dedup.get(1)!.seq, 2);
  const late = client(group, request(1, 1, 'append', 'b', '1'));
  assert.equal(late.result, { type: 'error', error: 'stale-request' });
  assert.is(late.state, group);
});

test('ErrWrongGroup for a shard the group does not serve (absent or frozen)', () => {
  const group = emptyGroup(1, 2);
  assert.equal(client(group, request(1, 0, 'get', 'b')).result, wrongGroup);
  const frozen = applyCommand(servingBoth(1), { type: 'freeze', identity: move }).state;
  assert.equal(client(frozen, request(1, 0, 'put', 'b', 'v')).result, wrongGroup);
  const other = client(frozen, request(1, 0, 'put', 'c', 'v'));
  assert.equal(other.result, { type: 'ok' });
});

test('expire-sessions drops records below the floor from served shards only', () => {
  let group = client(servingBoth(1), request(1, 0, 'put', 'b', 'x')).state;
  group = client(group, request(1, 1, 'put', 'c', 'y')).state;
  group = client(group, request(2, 0, 'put', 'c', 'z')).state;
  group = applyCommand(group, { type: 'freeze', identity: move }).state;
  const expired = applyCommand(group, { type: 'expire-sessions', below: 2 });
  assert.equal(expired.result, { type: 'expired', records: 1 });
  assert.is(expired.state.sessionFloor, 2);
  assert.is(expired.state.shards[0]!.dedup.size, 1, 'a frozen image is fixed');
  assert.equal(entriesOf(expired.state.shards[1]!.dedup).map(([client]) => client), [2]);
  const again = applyCommand(expired.state, { type: 'expire-sessions', below: 1 });
  assert.is(again.state, expired.state, 'the floor never goes down');
});

// Raft dissertation §6.3: once a session's record is gone, a late duplicate of its last
// request must be refused, not applied a second time.
test('a late duplicate from an expired session is refused, not applied twice', () => {
  const appendX = request(1, 0, 'append', 'c', 'x');
  let group = client(servingBoth(1), appendX).state;
  group = applyCommand(group, { type: 'expire-sessions', below: 2 }).state;
  const late = client(group, appendX);
  assert.equal(late.result, { type: 'error', error: 'session-expired' });
  assert.is(late.state, group);
  assert.equal(client(group, request(2, 0, 'get', 'c')).result, { type: 'value', value: 'x' });
});

test('the session floor travels with an image: dst refuses the expired client too', () => {
  const appendX = request(1, 0, 'append', 'b', 'x');
  let source = client(servingBoth(1), appendX).state;
  source = applyCommand(source, { type: 'expire-sessions', below: 2 }).state;
  const frozen = applyCommand(source, { type: 'freeze', identity: move });
  assert.ok(frozen.result.type === 'image');
  assert.is(frozen.result.image.sessionFloor, 2);
  assert.is(frozen.result.image.dedup.size, 0, 'the expired record is not in the image');
  const target = applyCommand(emptyGroup(2, 2), {
    type: 'install', identity: move, image: frozen.result.image,
  }).state;
  assert.is(target.sessionFloor, 2);
  assert.equal(client(target, appendX).result, { type: 'error', error: 'session-expired' });
});

test('freeze returns the fixed image; a repeat returns the same image', () => {
  const source = client(servingBoth(1), request(1, 0, 'put', 'b', 'x')).state;
  const frozen = applyCommand(source, { type: 'freeze', identity: move });
  assert.is(frozen.state.shards[0]!.phase, 'frozen');
  const { kv, dedup } = source.shards[0]!;
  const image = { kv, dedup, sessionFloor: 0, digest: imageDigest(kv, dedup) };
  assert.is(frozen.state.shards[0]!.frozenDigest, image.digest, 'the digest is fixed at freeze');
  assert.match(image.digest, /^[0-9a-f]{16}$/);
  assert.equal(frozen.result, { type: 'image', identity: move, image });
  const repeat = applyCommand(frozen.state, { type: 'freeze', identity: move });
  assert.is(repeat.state, frozen.state);
  assert.equal(repeat.result, frozen.result);
});

test('freeze refusals: wrong group, absent shard, frozen for another identity', () => {
  const source = servingBoth(1);
  assert.equal(applyCommand(source, { type: 'freeze', identity: { ...move, src: 3 } }).result,
    { type: 'error', error: 'ErrWrongGroup' });
  assert.equal(applyCommand(emptyGroup(1, 2), { type: 'freeze', identity: move }).result,
    { type: 'error', error: 'not-held' });
  const frozen = applyCommand(source, { type: 'freeze', identity: move }).state;
  assert.equal(applyCommand(frozen, { type: 'freeze', identity: { ...move, epoch: 3 } }).result,
    { type: 'error', error: 'not-held' });
  assert.equal(applyCommand(frozen, { type: 'freeze', identity: { ...move, shard: 7 } }).result,
    { type: 'error', error: 'bad-request' });
});

// DESIGN §3: one configuration change moves a shard once, so one epoch has one identity.
test('an identity that conflicts at the same epoch is refused (identity-conflict)', () => {
  const frozen = applyCommand(servingBoth(1), { type: 'freeze', identity: move }).state;
  const conflict = applyCommand(frozen, { type: 'freeze', identity: { ...move, dst: 3 } });
  assert.equal(conflict.result, { type: 'error', error: 'identity-conflict' });
  assert.is(conflict.state, frozen);
  const delete_ = { type: 'delete', identity: { ...move, dst: 3 }, receipt: null } as const;
  assert.equal(applyCommand(frozen, delete_).result, { type: 'error', error: 'identity-conflict' });
});

test('apply never throws on what a client or peer sent: it refuses with bad-request', () => {
  const group = servingBoth(1);
  const badRequest = { type: 'error', error: 'bad-request' };
  const malformed: unknown[] = [
    null,
    { type: 'unknown' },
    { type: 'client', request: request(1, -1, 'put', 'b', 'x') },
    { type: 'client', request: request(1, 0.5, 'put', 'b', 'x') },
    { type: 'client', request: request(1, 0, 'get', 'b', 'x') },
    { type: 'client', request: { ...request(1, 0, 'put', 'b', 'x'), op: 'drop' } },
    { type: 'client', request: { client: 1, seq: 0, op: 'put', key: 7, value: 'x' } },
    { type: 'freeze', identity: null },
    { type: 'freeze', identity: { ...move, epoch: 'two' } },
    { type: 'expire-sessions', below: -1 },
    { type: 'client' },
    { type: 'install', identity: move, image: { kv: [], dedup: [], sessionFloor: 0, digest: 'a' } },
    { type: 'delete', identity: move, receipt: { digest: 'x' } },
  ];
  for (const command of malformed) {
    const applied = applyCommand(group, command as GroupCommand);
    assert.equal(applied.result, badRequest, JSON.stringify(command));
    assert.is(applied.state, group);
  }
});

// CONTRACT: a shard left unassigned stays frozen at its last holder, which hands it on.
test('a parked shard is frozen again under a later identity, or served again on its return', () => {
  const written = client(servingBoth(1), request(1, 0, 'put', 'b', 'x')).state;
  const park = { shard: 0, epoch: 2, src: 1, dst: 0 };
  const parked = applyCommand(written, { type: 'freeze', identity: park });
  assert.ok(parked.result.type === 'image');
  assert.is(parked.state.shards[0]!.phase, 'frozen');
  const onward = { shard: 0, epoch: 3, src: 1, dst: 2 };
  const refrozen = applyCommand(parked.state, { type: 'freeze', identity: onward });
  assert.equal(refrozen.result, { type: 'image', identity: onward, image: parked.result.image });
  const back = { shard: 0, epoch: 3, src: 1, dst: 1 };
  const again = applyCommand(parked.state, { type: 'freeze', identity: back });
  assert.ok(again.result.type === 'image');
  const served = applyCommand(again.state, { type: 'install', identity: back,
    image: again.result.image });
  assert.equal(served.result, { type: 'receipt',
    receipt: { identity: back, digest: parked.result.image.digest } });
  const read = client(served.state, request(2, 0, 'get', 'b'));
  assert.equal(read.result, { type: 'value', value: 'x' });
  const unparked = applyCommand(written, { type: 'freeze', identity: move }).state;
  assert.equal(applyCommand(unparked, { type: 'freeze', identity: onward }).result,
    { type: 'error', error: 'not-held' }, 'only a parked shard moves on under a new identity');
});

test('install stores image and receipt; same digest again: original receipt, no change', () => {
  const kv = SortedArrayMap.fromSorted(['b'], ['x']);
  const image = { kv, dedup: noDedup, sessionFloor: 0, digest: imageDigest(kv, noDedup) };
  const target = emptyGroup(2, 2);
  const installed = applyCommand(target, { type: 'install', identity: move, image });
  const receipt = { identity: move, digest: image.digest };
  assert.equal(installed.result, { type: 'receipt', receipt });
  assert.is(installed.state.shards[0]!.phase, 'serving');
  assert.equal(installed.state.shards[0]!.receipt, receipt);
  const again = applyCommand(installed.state, { type: 'install', identity: move, image });
  assert.is(again.state, installed.state);
  assert.equal(again.result, { type: 'receipt', receipt });
  const other = applyCommand(installed.state, { type: 'install', identity: move, image: null });
  assert.equal(other.result, { type: 'error', error: 'digest-mismatch' });
  assert.is(other.state, installed.state);
});

test('install refusals: wrong group, shard already present, older epoch', () => {
  const image = null;
  assert.equal(applyCommand(emptyGroup(3, 2), { type: 'install', identity: move, image }).result,
    { type: 'error', error: 'ErrWrongGroup' });
  const present = servingBoth(2);
  assert.equal(applyCommand(present, { type: 'install', identity: move, image }).result,
    { type: 'error', error: 'shard-present' });
  const later = { ...move, epoch: 5 };
  const newer = applyCommand(emptyGroup(2, 2), { type: 'install', identity: later, image }).state;
  const stale = applyCommand(newer, { type: 'install', identity: move, image });
  assert.equal(stale.result, { type: 'error', error: 'stale-epoch' });
  assert.is(stale.state, newer);
});

test('delete: only with the receipt of the same identity and image; keeps a tombstone', () => {
  const source = client(servingBoth(1), request(1, 0, 'put', 'b', 'x')).state;
  const frozen = applyCommand(source, { type: 'freeze', identity: move });
  assert.ok(frozen.result.type === 'image');
  const receipt = { identity: move, digest: frozen.result.image.digest };
  const forgedReceipt = { ...receipt, digest: '1' };
  const forgedDelete = { type: 'delete', identity: move, receipt: forgedReceipt } as const;
  const forged = applyCommand(frozen.state, forgedDelete);
  assert.equal(forged.result, { type: 'error', error: 'digest-mismatch' });
  const deleted = applyCommand(frozen.state, { type: 'delete', identity: move, receipt });
  assert.equal(deleted.result, { type: 'deleted', tombstone: move });
  assert.equal(deleted.state.shards[0], {
    ...absentShard(sortedArrayMaps), identity: move, tombstone: move,
  });
  const again = applyCommand(deleted.state, { type: 'delete', identity: move, receipt });
  assert.is(again.state, deleted.state);
  assert.equal(applyCommand(deleted.state, { type: 'freeze', identity: move }).result,
    { type: 'error', error: 'already-deleted' });
  assert.equal(applyCommand(source, { type: 'delete', identity: move, receipt }).result,
    { type: 'error', error: 'not-frozen' });
});

test('unfreeze serves a frozen shard again (only the unfreeze-on-recovery driver sends it)', () => {
  const frozen = applyCommand(servingBoth(1), { type: 'freeze', identity: move }).state;
  const unfrozen = applyCommand(frozen, { type: 'unfreeze', identity: move });
  assert.equal(unfrozen.result, { type: 'unfrozen' });
  assert.is(unfrozen.state.shards[0]!.phase, 'serving');
  assert.equal(applyCommand(unfrozen.state, { type: 'unfreeze', identity: move }).result,
    { type: 'error', error: 'not-frozen' });
});

test('query-shard reports the facts and changes nothing', () => {
  const frozen = applyCommand(servingBoth(1), { type: 'freeze', identity: move }).state;
  const query = applyCommand(frozen, { type: 'query-shard', shard: 0 });
  assert.is(query.state, frozen);
  const facts = { phase: 'frozen', identity: move, receipt: null, tombstone: null };
  assert.equal(query.result, { type: 'facts', facts });
  const outOfRange = applyCommand(frozen, { type: 'query-shard', shard: 9 });
  assert.equal(outOfRange.result, { type: 'error', error: 'not-held' });
});

test('bug switches change exactly their step', () => {
  const source = servingBoth(1);
  const skip = applyCommand(source, { type: 'freeze', identity: move }, { 'skip-freeze': true });
  assert.is(skip.state.shards[0]!.phase, 'serving');
  const written = client(source, request(1, 0, 'put', 'b', 'x')).state;
  const freeze = { type: 'freeze', identity: move } as const;
  const withoutDedup = applyCommand(written, freeze, { 'dedup-not-migrated': true });
  const kv = SortedArrayMap.fromSorted(['b'], ['x']);
  const image = { kv, dedup: noDedup, sessionFloor: 0, digest: imageDigest(kv, noDedup) };
  assert.equal(withoutDedup.result, { type: 'image', identity: move, image });
  const newer = applyCommand(emptyGroup(2, 2), {
    type: 'install', identity: { ...move, epoch: 5 }, image: null,
  }).state;
  const stale = { type: 'install', identity: move, image: null } as const;
  assert.equal(applyCommand(newer, stale).result, { type: 'error', error: 'stale-epoch' });
  // Past the epoch guard, the next guard refuses: the shard is present.
  const accepted = applyCommand(newer, stale, { 'accept-stale-epoch': true });
  assert.equal(accepted.result, { type: 'error', error: 'shard-present' });
});

// Issue 10's bug switches at the state machine: each changes exactly the guarded answer.
test('bug switches: a frozen Get answered, a conflicting retry passed, an empty image', () => {
  const g1 = servingBoth(1);
  const written = client(g1, request(1, 0, 'append', 'b', 'x')).state;
  const frozen = applyCommand(written, { type: 'freeze', identity: move }).state;
  const get = { type: 'client', request: request(2, 0, 'get', 'b') } as const;
  assert.equal(applyCommand(frozen, get).result, wrongGroup);
  const read = applyCommand(frozen, get, { 'frozen-source-serves-reads': true });
  assert.equal(read.result, { type: 'value', value: 'x' });
  assert.is(read.state, frozen);
  const other = { type: 'client', request: request(1, 0, 'append', 'b', 'y') } as const;
  assert.equal(applyCommand(written, other).result,
    { type: 'error', error: 'identity-conflict' });
  assert.equal(applyCommand(written, other, { 'dedup-ignores-digest': true }).result,
    { type: 'ok' });
  const image = applyCommand(written, { type: 'freeze', identity: move }).result;
  assert.ok(image.type === 'image');
  const receipt = { identity: move, digest: image.image.digest };
  const deleted = applyCommand(frozen, { type: 'delete', identity: move, receipt }).state;
  const refreeze = { type: 'freeze', identity: move } as const;
  assert.equal(applyCommand(deleted, refreeze).result,
    { type: 'error', error: 'already-deleted' });
  const empty = applyCommand(deleted, refreeze, { 'migrate-returns-empty-after-gc': true });
  assert.ok(empty.result.type === 'image' && empty.result.image.kv.size === 0);
  assert.ok(empty.result.type === 'image' && empty.result.image.digest !== receipt.digest);
});

test('install-accepts-different-image: dst replaces its shard by another image', () => {
  const g1 = client(servingBoth(1), request(1, 0, 'append', 'b', 'x')).state;
  const frozen = applyCommand(g1, { type: 'freeze', identity: move });
  assert.ok(frozen.result.type === 'image');
  const install = { type: 'install', identity: move, image: frozen.result.image } as const;
  const g2 = applyCommand(emptyGroup(2, 2), install).state;
  const kv = SortedArrayMap.empty<string, string>();
  const other = { kv, dedup: noDedup, sessionFloor: 0, digest: imageDigest(kv, noDedup) };
  const again = { type: 'install', identity: move, image: other } as const;
  assert.equal(applyCommand(g2, again).result, { type: 'error', error: 'digest-mismatch' });
  const replaced = applyCommand(g2, again, { 'install-accepts-different-image': true });
  assert.equal(entriesOf(replaced.state.shards[0]!.kv), []);
  assert.equal(replaced.result, { type: 'receipt', receipt: { identity: move,
    digest: other.digest } });
});

test.run();
