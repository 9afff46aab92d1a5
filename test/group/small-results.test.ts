// Issue 21 item 1, small results: a put or append answers ok, and its dedup record keeps the
// request's digest and that ok, never the value, so a record's size does not grow with the
// value it guards; a get answers the value and leaves no record (a retry reads again).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import {
  absentShard, applyGroupCommand, emptyGroup, readValue, recordedResult, requestDigest,
  sortedArrayMaps, withShard, type ClientRequest, type GroupState,
} from '../../spec/group/index.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';

function serving(): GroupState {
  const shard = { ...absentShard(sortedArrayMaps), phase: 'serving' as const };
  return withShard(emptyGroup(1, 1), 0, shard);
}

const apply = (group: GroupState, request: ClientRequest) =>
  applyGroupCommand(group, { type: 'client', request }, noMigrationBugs, unboundedSizes);

const request = (client: number, seq: number, op: ClientRequest['op'], value = '') =>
  ({ client, seq, op, key: 'k', value });

test('a 5 KB append leaves a record of a few bytes: its digest and ok, not the value', () => {
  const large = 'v'.repeat(5 * 1024);
  const appended = apply(serving(), request(1, 1, 'append', large));
  assert.equal(appended.result, { type: 'ok' });
  const shard = appended.state.shards[0]!;
  assert.is(readValue(shard.kv, 'k'), large);
  const record = shard.dedup.get(1)!;
  const digest = requestDigest(request(1, 1, 'append', large));
  assert.equal(record, { client: 1, seq: 1, digest, result: 'ok' });
  const encodedBytes = Buffer.byteLength(JSON.stringify(record));
  assert.ok(encodedBytes < 64, `the record encodes in ${encodedBytes} bytes`);
});

test('a duplicate put after its record answers ok and is not applied a second time', () => {
  const first = apply(serving(), request(1, 1, 'put', 'a'));
  const overwritten = apply(first.state, request(2, 1, 'put', 'b')).state;
  const duplicate = apply(overwritten, request(1, 1, 'put', 'a'));
  assert.equal(duplicate.result, { type: 'ok' });
  assert.is(duplicate.state, overwritten, 'the duplicate changed nothing');
  assert.is(readValue(duplicate.state.shards[0]!.kv, 'k'), 'b', 'applied twice, it would be a');
  // A leader answers the same retry from the record without a log entry (retry-admission.ts).
  assert.equal(recordedResult(overwritten, request(1, 1, 'put', 'a')), { type: 'ok' });
});

test('a get leaves no record: its retry reads the value as it is then', () => {
  const written = apply(serving(), request(1, 1, 'put', 'a')).state;
  const get = request(2, 1, 'get');
  const first = apply(written, get);
  assert.equal(first.result, { type: 'value', value: 'a' });
  assert.is(first.state, written, 'a get writes nothing');
  assert.is(recordedResult(written, get), null, 'no record answers a get');
  const later = apply(written, request(1, 2, 'append', 'b')).state;
  assert.equal(apply(later, get).result, { type: 'value', value: 'ab' });
});

test.run();
