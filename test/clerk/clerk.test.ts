// The clerk (MIT 6.5840's, with Raft dissertation §6.3's sessions): retries keep (client, seq),
// so a request that the network lost or duplicated takes effect exactly once (ExactlyOnce);
// an operation whose result it never learned is `unknown`, never `refused`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { key2shard } from '../../spec/group/digest.js';
import type { Clerk } from '../../impl/clerk/clerk.js';
import { layoutOf, SimCluster } from '../node/sim-cluster.js';

const layout = layoutOf(3, [100, 101], 3, 10);
const limitMs = 60_000;

async function joinBoth(cluster: SimCluster, admin: Clerk): Promise<void> {
  const deadline = cluster.clock.now() + limitMs;
  const groups = { 100: layout.groups[100]!, 101: layout.groups[101]! };
  assert.is((await cluster.settle(admin.join(groups, deadline), limitMs)).status, 'ok');
  assert.is((await cluster.settle(admin.waitPublished(1, deadline), limitMs)).status, 'ok');
}

test('appends through a lossy, duplicating network take effect exactly once, in order',
  async () => {
    const faults = { dropRate: 0.2, duplicateRate: 0.2, delayMsMin: 1, delayMsMax: 20 };
    const cluster = new SimCluster({ seed: 31, layout, faults });
    await cluster.startAll();
    const admin = cluster.clerk('admin-0');
    await joinBoth(cluster, admin);
    const writers = [cluster.clerk('client-1'), cluster.clerk('client-2')];
    const deadline = cluster.clock.now() + limitMs;
    const rounds = 15;
    const work = writers.map(async (writer, index) => {
      for (let round = 0; round < rounds; round++) {
        const outcome = await writer.append(`key-${index}`, `${round};`, deadline);
        assert.is(outcome.status, 'ok', `writer ${index} round ${round}`);
      }
    });
    await cluster.settle(Promise.all(work), limitMs);
    const expected = Array.from({ length: rounds }, (_, round) => `${round};`).join('');
    for (const index of [0, 1]) {
      assert.equal(await cluster.settle(admin.get(`key-${index}`, deadline), limitMs),
        { status: 'ok', value: expected });
    }
    assert.ok(cluster.network.statistics.duplicated > 0 && cluster.network.statistics.dropped > 0);
    assert.equal(cluster.fatal, []);
  });

test('unknown when the owner is down after a request left; refused when none left', async () => {
  const cluster = new SimCluster({ seed: 32, layout });
  await cluster.startAll();
  const admin = cluster.clerk('admin-0', 100);
  await joinBoth(cluster, admin);
  const query = await cluster.settle(admin.query(-1, cluster.clock.now() + limitMs), limitMs);
  assert.ok(query.status === 'ok');
  const owner = query.value.config.shards[key2shard('z', 10)]!;
  for (const name of layout.groups[owner]!) cluster.crash(name);
  const start = cluster.clock.now();
  const put = await cluster.settle(admin.put('z', 'lost?', start + 1_000), limitMs);
  assert.equal(put, { status: 'unknown', error: 'put: no answer before the deadline' });
  assert.ok(cluster.clock.now() - start <= 1_100, 'the deadline bounds the retries');
  const late = await cluster.settle(admin.put('z', 'never', cluster.clock.now()), limitMs);
  assert.is(late.status, 'refused');
  const sent = cluster.network.statistics.sent;
  const huge = await cluster.settle(
    admin.put('z', 'x'.repeat(2 ** 20 + 1), cluster.clock.now() + 5_000), limitMs);
  assert.equal(huge, { status: 'refused', error: 'value longer than 1048576 bytes' });
  assert.is(cluster.network.statistics.sent, sent, 'nothing was sent');
  // The other group still serves its shards (UnaffectedServed).
  const other = 'abcdefghij'.split('').find((key) =>
    query.value.config.shards[key2shard(key, 10)] !== owner)!;
  const served = await cluster.settle(admin.put(other, 'ok', cluster.clock.now() + 5_000),
    limitMs);
  assert.equal(served, { status: 'ok', value: undefined });
  assert.equal(cluster.fatal, []);
});

test('operations continue through a group leader crash (a new election, Raft §5.2)',
  async () => {
    const cluster = new SimCluster({ seed: 33, layout });
    await cluster.startAll();
    const admin = cluster.clerk('admin-0');
    await joinBoth(cluster, admin);
    const deadline = cluster.clock.now() + limitMs;
    assert.is((await cluster.settle(admin.put('a', '1', deadline), limitMs)).status, 'ok');
    const query = await cluster.settle(admin.query(-1, deadline), limitMs);
    assert.ok(query.status === 'ok');
    const servers = layout.groups[query.value.config.shards[key2shard('a', 10)]!]!;
    const [leader] = cluster.leaders(servers);
    assert.ok(leader !== undefined);
    cluster.crash(leader);
    const before = cluster.clock.now();
    assert.is((await cluster.settle(admin.append('a', '2', deadline), limitMs)).status, 'ok');
    const newLeaders = cluster.leaders(servers);
    assert.is(newLeaders.length, 1);
    assert.ok(newLeaders[0] !== leader);
    // An election takes at least one election timeout (300 ms minimum by default).
    assert.ok(cluster.clock.now() - before >= 300, `${cluster.clock.now() - before} ms`);
    assert.equal(await cluster.settle(admin.get('a', deadline), limitMs),
      { status: 'ok', value: '12' });
    const status = await cluster.settle(admin.status(newLeaders[0]!, deadline), limitMs);
    assert.ok(status.status === 'ok');
    assert.is(status.value.role, 'leader');
    assert.is(status.value.name, newLeaders[0]);
    assert.ok(status.value.shards.includes(key2shard('a', 10)));
    assert.equal(cluster.fatal, []);
  });

test.run();
