// Issue 24 item 2: the seed article's harm of a stale epoch (A -> B -> A, then a late Delete
// and a late Install of the first move erase or overwrite what A accepted since) does not
// follow here from accept-stale-epoch alone: past the epoch guard, the identity guards of
// DESIGN §3 stop both (the tombstone answers a repeated delete, and a delete needs the shard
// frozen under its identity with the receipt's digest; the receipt answers a repeated
// install, and another needs the shard absent). What
// the switch lets through is a late Freeze, which freezes the shard A serves again: the
// checker's GarbageBound and UnaffectedServed (docs/catalog.md).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import {
  absentShard, applyGroupCommand, emptyGroup, sortedArrayMaps, withShard,
  type GroupCommand, type GroupState, type Identity, type Image, type Receipt,
} from '../../spec/group/index.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';

const bugs = { ...noMigrationBugs, 'accept-stale-epoch': true };
const apply = (group: GroupState, command: GroupCommand) =>
  applyGroupCommand(group, command, bugs, unboundedSizes);
const there: Identity = { shard: 0, epoch: 2, src: 1, dst: 2 };
const back: Identity = { shard: 0, epoch: 3, src: 2, dst: 1 };
const put = (seq: number, value: string): GroupCommand =>
  ({ type: 'client', request: { client: 1, seq, op: 'put', key: 'b', value } });

/** Freeze at src, install at dst, delete at src: one move, every message delivered once. */
function migrate(src: GroupState, dst: GroupState, identity: Identity) {
  const frozen = apply(src, { type: 'freeze', identity });
  assert.ok(frozen.result.type === 'image', JSON.stringify(frozen.result));
  const image: Image = frozen.result.image;
  const installed = apply(dst, { type: 'install', identity, image });
  assert.ok(installed.result.type === 'receipt', JSON.stringify(installed.result));
  const receipt: Receipt = installed.result.receipt;
  const deleted = apply(frozen.state, { type: 'delete', identity, receipt });
  assert.equal(deleted.result, { type: 'deleted', tombstone: identity });
  return { src: deleted.state, dst: installed.state, image, receipt };
}

test('A -> B -> A: a late Delete and a late Install of the first move change nothing', () => {
  const serving = { ...absentShard(sortedArrayMaps), phase: 'serving' as const };
  let a = withShard(emptyGroup(1, 1), 0, serving);
  let b = emptyGroup(2, 1);
  a = apply(a, put(0, 'x')).state;
  const first = migrate(a, b, there);
  const second = migrate(first.dst, first.src, back);
  b = second.src;
  a = apply(second.dst, put(1, 'y')).state;
  assert.is(a.shards[0]!.kv.get('b'), 'y');
  // A's tombstone of the first move answers the repeated Delete, and nothing is deleted.
  const lateDelete = apply(a, { type: 'delete', identity: there, receipt: first.receipt });
  assert.equal(lateDelete.result, { type: 'deleted', tombstone: there });
  assert.is(lateDelete.state, a);
  const lateInstall = apply(b, { type: 'install', identity: there, image: first.image });
  assert.equal(lateInstall.result, { type: 'receipt', receipt: first.receipt });
  assert.is(lateInstall.state, b, 'the repeated install changes nothing at B');
  // What gets through: a late Freeze of the first move freezes what A serves again.
  const lateFreeze = apply(a, { type: 'freeze', identity: there });
  assert.is(lateFreeze.state.shards[0]!.phase, 'frozen');
  assert.equal(lateFreeze.state.shards[0]!.identity, there);
  // ...and the late Delete after it still meets the tombstone: the write after the return
  // stays (its frozen digest is A's data now, which no receipt of the first move matches).
  const afterFreeze = apply(lateFreeze.state,
    { type: 'delete', identity: there, receipt: first.receipt });
  assert.equal(afterFreeze.result, { type: 'deleted', tombstone: there });
  assert.is(afterFreeze.state, lateFreeze.state);
  assert.is(afterFreeze.state.shards[0]!.kv.get('b'), 'y');
  assert.is.not(lateFreeze.state.shards[0]!.frozenDigest, first.receipt.digest);
});

test('without the switch, each late message of the first move is a stale epoch', () => {
  const serving = { ...absentShard(sortedArrayMaps), phase: 'serving' as const };
  const a = withShard(emptyGroup(1, 1), 0, { ...serving, identity: back });
  const freeze = applyGroupCommand(a, { type: 'freeze', identity: there }, noMigrationBugs,
    unboundedSizes);
  assert.equal(freeze.result, { type: 'error', error: 'stale-epoch' });
});

test.run();
