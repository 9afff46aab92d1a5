// Issue 24 item 1: one-seq-across-shards keeps one dedup record per client for all of a
// group's shards, in the shard of its latest request. While both shards serve here, the
// client-wide highest seq still refuses the late duplicate (stale-request); once the shard
// holding the record freezes for a move, the duplicate of the earlier request to the other
// shard is applied again (ExactlyOnce; the checker's 7-step trace).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import {
  absentShard, applyGroupCommand, emptyGroup, sortedArrayMaps, withShard,
  type GroupCommand, type GroupState,
} from '../../spec/group/index.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';

// Key 'b' is in shard 0 and key 'c' in shard 1 of two.
const append = (seq: number, key: string): GroupCommand =>
  ({ type: 'client', request: { client: 7, seq, op: 'append', key, value: 'x' } });
const freezeShard1: GroupCommand =
  { type: 'freeze', identity: { shard: 1, epoch: 2, src: 1, dst: 2 } };

function servingBoth(): GroupState {
  const serving = { ...absentShard(sortedArrayMaps), phase: 'serving' as const };
  return withShard(withShard(emptyGroup(1, 2), 0, serving), 1, serving);
}

function run(on: boolean) {
  const bugs = { ...noMigrationBugs, 'one-seq-across-shards': on };
  const apply = (group: GroupState, command: GroupCommand) =>
    applyGroupCommand(group, command, bugs, unboundedSizes);
  const first = apply(servingBoth(), append(0, 'b')).state;
  const second = apply(first, append(1, 'c')).state;
  const whileServing = apply(second, append(0, 'b'));
  const frozen = apply(second, freezeShard1).state;
  const afterFreeze = apply(frozen, append(0, 'b'));
  return { second, whileServing, afterFreeze };
}

test('one-seq-across-shards: the record moves to shard 1; after its freeze, 0 is applied again',
  () => {
    const { second, whileServing, afterFreeze } = run(true);
    assert.is(second.shards[0]!.dedup.get(7), undefined, 'shard 0 lost the client record');
    assert.is(second.shards[1]!.dedup.get(7)?.seq, 1);
    assert.equal(whileServing.result, { type: 'error', error: 'stale-request' });
    assert.equal(afterFreeze.result, { type: 'ok' });
    assert.is(afterFreeze.state.shards[0]!.kv.get('b'), 'xx', 'the append applied twice');
  });

test('per-shard records: the late duplicate gets its first result, before and after', () => {
  const { second, whileServing, afterFreeze } = run(false);
  assert.is(second.shards[0]!.dedup.get(7)?.seq, 0);
  assert.equal(whileServing.result, { type: 'ok' });
  assert.is(whileServing.state, second, 'answered from the record, not applied again');
  assert.equal(afterFreeze.result, { type: 'ok' });
  assert.is(afterFreeze.state.shards[0]!.kv.get('b'), 'x');
});

test.run();
