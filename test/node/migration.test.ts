// Groups serve keys and the controller leader's driver migrates shards (DESIGN §3, "The
// migration protocol"), over the simulated network and disks: values written before a move
// are read back from the new owner, also when the controller leader crashes mid-migration.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { key2shard } from '../../spec/group/digest.js';
import type { Clerk } from '../../impl/clerk/clerk.js';
import type { ServerView } from '../../impl/node/api.js';
import { layoutOf, SimCluster } from './sim-cluster.js';

const layout = layoutOf(3, [100, 101], 3, 10);
const limitMs = 20_000;

async function joinBoth(cluster: SimCluster, admin: Clerk): Promise<void> {
  const deadline = cluster.clock.now() + limitMs;
  const joined = await cluster.settle(
    admin.join({ 100: layout.groups[100]!, 101: layout.groups[101]! }, deadline), limitMs);
  assert.is(joined.status, 'ok');
  const published = await cluster.settle(admin.waitPublished(1, deadline), limitMs);
  assert.is(published.status === 'ok' && published.value.published, true);
}

function groupView(cluster: SimCluster, name: string): Extract<ServerView, { kind: 'group' }> {
  const view = cluster.servers.get(name)!.view();
  assert.ok(view !== null && view.kind === 'group', `${name} has no group view`);
  return view;
}

/** Keys 'a'..'j': first bytes 97..106, so shards 7, 8, 9, 0, 1, ..., 6 (key2shard). */
const keys = 'abcdefghij'.split('');

test('a clerk writes keys of every shard and reads them back', async () => {
  const cluster = new SimCluster({ seed: 11, layout });
  await cluster.startAll();
  const admin = cluster.clerk('admin-0');
  await joinBoth(cluster, admin);
  const deadline = cluster.clock.now() + limitMs;
  assert.equal(keys.map((key) => key2shard(key, 10)), [7, 8, 9, 0, 1, 2, 3, 4, 5, 6]);
  for (const key of keys) {
    assert.equal(await cluster.settle(admin.put(key, `${key}1`, deadline), limitMs),
      { status: 'ok', value: undefined });
    assert.equal(await cluster.settle(admin.append(key, '+2', deadline), limitMs),
      { status: 'ok', value: undefined });
  }
  for (const key of keys) {
    assert.equal(await cluster.settle(admin.get(key, deadline), limitMs),
      { status: 'ok', value: `${key}1+2` });
  }
  assert.equal(await cluster.settle(admin.get('missing', deadline), limitMs),
    { status: 'ok', value: '' });
  // Every replica of a group applied the same writes (one Raft log).
  await cluster.run(500);
  for (const gid of [100, 101]) {
    const sizes = layout.groups[gid]!.map((name) =>
      groupView(cluster, name).state.shards.reduce((sum, shard) => sum + shard.kv.size, 0));
    assert.equal(sizes, [5, 5, 5]);
  }
  assert.equal(cluster.fatal, []);
});

test('a moved shard is served by its new owner with its values (Freeze/Install/Delete)',
  async () => {
    const cluster = new SimCluster({ seed: 12, layout });
    await cluster.startAll();
    const admin = cluster.clerk('admin-0');
    await joinBoth(cluster, admin);
    const deadline = cluster.clock.now() + limitMs;
    const query = await cluster.settle(admin.query(-1, deadline), limitMs);
    assert.ok(query.status === 'ok');
    const shard = key2shard('a', 10);
    const from = query.value.config.shards[shard]!;
    const to = from === 100 ? 101 : 100;
    await cluster.settle(admin.put('a', 'v1', deadline), limitMs);
    await cluster.settle(admin.append('a', '-v2', deadline), limitMs);
    const moved = await cluster.settle(admin.move(shard, to, deadline), limitMs);
    assert.ok(moved.status === 'ok' && moved.value.shards[shard] === to);
    const published = await cluster.settle(admin.waitPublished(2, deadline), limitMs);
    assert.ok(published.status === 'ok' && published.value.published);
    // A second clerk, routing from a fresh configuration, reads the value at the new owner.
    const reader = cluster.clerk('client-1');
    assert.equal(await cluster.settle(reader.get('a', deadline), limitMs),
      { status: 'ok', value: 'v1-v2' });
    assert.equal(await cluster.settle(admin.append('a', '-v3', deadline), limitMs),
      { status: 'ok', value: undefined });
    await cluster.run(500);
    for (const name of layout.groups[to]!) {
      const record = groupView(cluster, name).state.shards[shard]!;
      assert.is(record.phase, 'serving');
      assert.is(record.kv.get('a'), 'v1-v2-v3');
    }
    for (const name of layout.groups[from]!) {
      const record = groupView(cluster, name).state.shards[shard]!;
      assert.is(record.phase, 'absent');
      assert.is(record.kv.size, 0, 'the source deleted the moved data (GarbageBound)');
      assert.is(record.tombstone?.epoch, 2);
    }
    assert.equal(cluster.fatal, []);
  });

test.run();
