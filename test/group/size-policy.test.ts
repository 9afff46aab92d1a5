// The group's size policy (spec/group/size-policy.ts, issue 27): a value is bounded after an
// append like a put's, the refusal is a result of the log and its retries are refused again.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  absentShard, applyGroupCommand, emptyGroup, imageDigest, readValue, sortedArrayMaps,
  utf8Bytes, withShard, type ClientRequest, type GroupState, type SizeLimits,
} from '../../spec/group/index.js';
import { noMigrationBugs } from '../../spec/migration/bugs.js';

const limits: SizeLimits = { maxValueBytes: 8 };
const tooLarge = { type: 'error', error: 'value-too-large' };

function serving(): GroupState {
  const shard = { ...absentShard(sortedArrayMaps), phase: 'serving' as const };
  return withShard(emptyGroup(1, 1), 0, shard);
}

function apply(group: GroupState, request: ClientRequest) {
  return applyGroupCommand(group, { type: 'client', request }, noMigrationBugs, limits);
}

const op = (client: number, seq: number, kind: ClientRequest['op'], value = '') =>
  ({ client, seq, op: kind, key: 'k', value });

test('an append may grow a value to the limit, not past it; nothing is written', () => {
  let group = serving();
  group = apply(group, op(1, 1, 'put', 'abcd')).state;
  const atLimit = apply(group, op(1, 2, 'append', 'efgh'));
  assert.equal(atLimit.result, { type: 'ok' });
  group = atLimit.state;
  const past = apply(group, op(1, 3, 'append', 'i'));
  assert.equal(past.result, tooLarge);
  assert.is(readValue(past.state.shards[0]!.kv, 'k'), 'abcdefgh');
  assert.equal(apply(past.state, op(2, 1, 'get')).result, { type: 'value', value: 'abcdefgh' });
});

test('a put over the limit is refused; multi-byte characters count in UTF-8 bytes', () => {
  const group = serving();
  assert.equal(apply(group, op(1, 1, 'put', '123456789')).result, tooLarge);
  assert.equal(apply(group, op(1, 1, 'put', 'ééé')).result, { type: 'ok' });
  assert.equal(apply(group, op(1, 1, 'put', 'éééé€')).result, tooLarge);
});

test('a refused append is recorded: its retry is refused even after the value shrank', () => {
  let group = apply(serving(), op(1, 1, 'put', '12345678')).state;
  const refused = apply(group, op(2, 1, 'append', 'x'));
  assert.equal(refused.result, tooLarge);
  group = apply(refused.state, op(1, 2, 'put', '')).state;
  const retry = apply(group, op(2, 1, 'append', 'x'));
  assert.equal(retry.result, tooLarge);
  assert.is(readValue(retry.state.shards[0]!.kv, 'k'), '');
  // The record takes part in the image's digest, so a moved shard keeps the refusal.
  const shard = retry.state.shards[0]!;
  const record = shard.dedup.get(2)!;
  assert.is(record.result, 'value-too-large');
  const withoutRefusal = shard.dedup.set(2, { ...record, result: 'ok' });
  assert.is.not(imageDigest(shard.kv, shard.dedup), imageDigest(shard.kv, withoutRefusal));
});

test('utf8Bytes counts as Buffer.byteLength does, lone surrogates included', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }),
    (binary, graphemes) => {
      const text = binary + '\ud800' + graphemes + '\udfff';
      assert.is(utf8Bytes(text), Buffer.byteLength(text, 'utf8'));
    }));
});

test.run();
