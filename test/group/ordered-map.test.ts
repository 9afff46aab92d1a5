// The two ordered maps of the group state machine (issue 9, item 7): the persistent B-tree
// against the sorted-array map as its oracle (fast-check prints the seed of a failure), and
// persistence: an update never changes the map it was applied to.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BTreeMap } from '../../spec/group/btree-map.js';
import { absentShard, emptyGroup, withShard, type EmptyMaps } from '../../spec/group/group.js';
import { SortedArrayMap, type OrderedMap } from '../../spec/group/ordered-map.js';
import { applyGroupCommand } from '../../spec/group/state-machine.js';
import { unboundedSizes } from '../../spec/group/size-policy.js';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import type { GroupCommand, GroupState } from '../../spec/group/types.js';

const contents = <K extends string | number, V>(map: OrderedMap<K, V>) =>
  [...map.entries()].map(([key, value]) => [key, value]);

// A small alphabet makes overwrites common; capacity 3 makes every few inserts split a node.
const key = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'é'), { maxLength: 3 })
  .map((letters) => letters.join(''));
const operations = fc.array(fc.tuple(key, fc.integer({ min: 0, max: 9 })), { maxLength: 200 });

test('B-tree and sorted array agree on entries, size and get after any sequence of sets', () => {
  fc.assert(fc.property(operations, fc.integer({ min: 3, max: 6 }), (sets, capacity) => {
    let tree: OrderedMap<string, number> = BTreeMap.empty(capacity);
    let array: OrderedMap<string, number> = SortedArrayMap.empty();
    for (const [key, value] of sets) {
      tree = tree.set(key, value);
      array = array.set(key, value);
    }
    assert.equal(contents(tree), contents(array));
    assert.is(tree.size, array.size);
    for (const [key] of sets) assert.is(tree.get(key), array.get(key));
    assert.is(tree.get('zz'), undefined);
    const even = (_: string, value: number) => value % 2 === 0;
    assert.equal(contents(tree.filter(even)), contents(array.filter(even)));
  }));
});

test('persistence: every earlier version keeps its entries after later sets', () => {
  fc.assert(fc.property(operations, (sets) => {
    const versions: OrderedMap<string, number>[] = [BTreeMap.empty(3)];
    const oracles: OrderedMap<string, number>[] = [SortedArrayMap.empty()];
    for (const [key, value] of sets) {
      versions.push(versions[versions.length - 1]!.set(key, value));
      oracles.push(oracles[oracles.length - 1]!.set(key, value));
    }
    versions.forEach((version, index) => {
      assert.equal(contents(version), contents(oracles[index]!));
    });
  }));
});

test('numeric keys order numerically (dedup records are keyed by client id)', () => {
  let tree: OrderedMap<number, string> = BTreeMap.empty(3);
  for (const client of [10, 9, 100, 2, 33, 1]) tree = tree.set(client, `c${client}`);
  assert.equal(contents(tree).map(([key]) => key), [1, 2, 9, 10, 33, 100]);
});

test('a set that changes nothing returns the same map; 100,000 keys stay 4 levels deep', () => {
  let tree = BTreeMap.empty<string, string>();
  for (let index = 0; index < 100_000; index++) tree = tree.set(`k${index}`, 'v');
  assert.is(tree.size, 100_000);
  assert.is(tree.set('k5', 'v'), tree);
  // Every node but the root is at least half full (16 of 32) after a split: at most 6,250
  // leaves, 390 and 24 branches above them, and a root: 4 levels.
  assert.ok(tree.height() <= 4, `height ${tree.height()}`);
  assert.is(tree.get('k99999'), 'v');
  assert.is(SortedArrayMap.fromSorted(['a'], [1]).set('a', 1).size, 1);
  assert.throws(() => SortedArrayMap.fromSorted(['b', 'a'], [1, 2]), /ascending/);
});

// The group state machine does not depend on which map it runs on: the same commands give the
// same results and the same data with either implementation.
test('a group on B-tree maps answers as a group on sorted arrays, command for command', () => {
  const request = fc.record({
    client: fc.integer({ min: 0, max: 4 }),
    seq: fc.integer({ min: 0, max: 3 }),
    op: fc.constantFrom('get', 'put', 'append'),
    key: fc.constantFrom('a', 'b', 'c', 'd'),
    value: fc.constantFrom('', 'x', 'y'),
  }).map((fields) => ({ ...fields, value: fields.op === 'get' ? '' : fields.value }));
  const command: fc.Arbitrary<GroupCommand> = fc.oneof(
    request.map((fields) => ({ type: 'client', request: fields }) as const),
    fc.integer({ min: 0, max: 5 }).map((below) => ({ type: 'expire-sessions', below }) as const),
  );
  const serving = (maps: EmptyMaps): GroupState => {
    let group = emptyGroup(1, 2, maps);
    for (const shard of [0, 1]) {
      group = withShard(group, shard, { ...absentShard(maps), phase: 'serving' });
    }
    return group;
  };
  fc.assert(fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
    let tree = serving({ kv: BTreeMap.empty(3), dedup: BTreeMap.empty(3) });
    let array = serving({ kv: SortedArrayMap.empty(), dedup: SortedArrayMap.empty() });
    for (const next of commands) {
      const fromTree = applyGroupCommand(tree, next, noMigrationBugs, unboundedSizes);
      const fromArray = applyGroupCommand(array, next, noMigrationBugs, unboundedSizes);
      assert.equal(fromTree.result, fromArray.result);
      tree = fromTree.state;
      array = fromArray.state;
    }
    tree.shards.forEach((record, shard) => {
      assert.equal(contents(record.kv), contents(array.shards[shard]!.kv));
      assert.equal(contents(record.dedup), contents(array.shards[shard]!.dedup));
    });
  }));
});

test.run();
