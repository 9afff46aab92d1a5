// Crash recovery of the node shell: a controller leader that crashes mid-migration (its driver's
// beliefs die with it; the next leader's driver recovers from `next` and the groups' facts,
// DESIGN §3), and snapshots (Raft §7) that bound the log and restart a server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Clerk } from '../../impl/clerk/clerk.js';
import { layoutOf, SimCluster } from './sim-cluster.js';

const layout = layoutOf(3, [100, 101], 3, 10);
const limitMs = 30_000;
const keys = 'abcdefghij'.split('');

async function joinAndWrite(cluster: SimCluster, admin: Clerk): Promise<void> {
  const deadline = cluster.clock.now() + limitMs;
  const groups = { 100: layout.groups[100]!, 101: layout.groups[101]! };
  assert.is((await cluster.settle(admin.join(groups, deadline), limitMs)).status, 'ok');
  assert.is((await cluster.settle(admin.waitPublished(1, deadline), limitMs)).status, 'ok');
  for (const key of keys) {
    const put = await cluster.settle(admin.put(key, `${key}-value`, deadline), limitMs);
    assert.is(put.status, 'ok');
  }
}

function controllerState(cluster: SimCluster, name: string) {
  const view = cluster.servers.get(name)!.view();
  return view?.kind === 'controller' ? view.state : null;
}

test('a controller leader crash mid-migration: the next leader completes it', async () => {
  const cluster = new SimCluster({ seed: 21, layout });
  await cluster.startAll();
  const admin = cluster.clerk('admin-0');
  await joinAndWrite(cluster, admin);
  const leaving = admin.leave([101], cluster.clock.now() + limitMs);
  // Run until the leader has recorded the intent `next` for configuration 2, then crash it.
  let leader: string | undefined;
  for (let waited = 0; waited < 5_000 && leader === undefined; waited++) {
    await cluster.run(1);
    leader = cluster.leaders(layout.controllers).find((name) =>
      controllerState(cluster, name)?.next?.num === 2);
  }
  assert.ok(leader !== undefined, 'the intent was never recorded');
  assert.is(controllerState(cluster, leader)!.current, 1, 'crashed before the publish');
  cluster.crash(leader);
  const left = await cluster.settle(leaving, limitMs);
  assert.is(left.status, 'ok');
  await cluster.run(3_000);
  await cluster.start(leader);
  const published = await cluster.settle(
    admin.waitPublished(2, cluster.clock.now() + limitMs), limitMs);
  assert.ok(published.status === 'ok' && published.value.published);
  assert.ok(published.value.config.shards.every((gid) => gid === 100));
  const newLeader = cluster.leaders(layout.controllers);
  assert.is(newLeader.length, 1);
  const deadline = cluster.clock.now() + limitMs;
  for (const key of keys) {
    assert.equal(await cluster.settle(admin.get(key, deadline), limitMs),
      { status: 'ok', value: `${key}-value` });
  }
  // The restarted controller caught up with the published configuration.
  await cluster.run(1_000);
  assert.is(controllerState(cluster, leader)?.current, 2);
  for (const name of layout.groups[101]!) {
    assert.equal(cluster.servers.get(name)!.status()!.shards, []);
  }
  assert.equal(cluster.fatal, []);
});

test('snapshots keep logBytes bounded; a restarted server recovers from one (Raft §7)',
  async () => {
    const bound = 2_000;
    const cluster = new SimCluster({
      seed: 22, layout, tuning: { maxRaftStateBytes: bound }, recordSteps: true,
    });
    await cluster.startAll();
    const admin = cluster.clerk('admin-0');
    await joinAndWrite(cluster, admin);
    // A follower of the group that owns key 'a' misses the writes: it must be sent a snapshot.
    const owner = (await cluster.settle(admin.query(-1, cluster.clock.now() + limitMs),
      limitMs));
    assert.ok(owner.status === 'ok');
    const gid = owner.value.config.shards[7]!;
    const servers = layout.groups[gid]!;
    const absent = servers.find((name) => cluster.servers.get(name)!.status()!.role !== 'leader')!;
    cluster.crash(absent);
    let largestLog = 0;
    const deadline = cluster.clock.now() + limitMs;
    for (let round = 0; round < 60; round++) {
      const outcome = await cluster.settle(admin.append('a', `${round},`, deadline), limitMs);
      assert.is(outcome.status, 'ok');
      for (const name of cluster.names) {
        largestLog = Math.max(largestLog, cluster.servers.get(name)!.status()?.logBytes ?? 0);
      }
    }
    assert.ok(largestLog <= 8 * bound, `a log grew to ${largestLog} bytes`);
    await cluster.start(absent);
    await cluster.run(2_000);
    const installs = cluster.steps.filter((record) => record.node === absent &&
      JSON.stringify(record.input).includes('InstallSnapshotRequest'));
    assert.ok(installs.length >= 1, 'the leader sent its snapshot to the lagging server');
    const expected = 'a-value' + Array.from({ length: 60 }, (_, round) => `${round},`).join('');
    for (const name of servers) {
      const status = cluster.servers.get(name)!.status()!;
      assert.ok(status.snapshotBytes > 0, `${name} holds no snapshot`);
      assert.ok(status.logBytes <= 8 * bound, `${name} log ${status.logBytes}`);
      const view = cluster.servers.get(name)!.view();
      assert.ok(view?.kind === 'group');
      assert.is(view.state.shards[7]!.kv.get('a'), expected, name);
    }
    // A restart from the snapshot and the log after it: the same state, the same value.
    cluster.crash(absent);
    const restarted = await cluster.start(absent);
    const view = restarted.view();
    assert.ok(view?.kind === 'group');
    assert.is(view.state.shards[7]!.kv.get('a'), expected);
    assert.ok(view.appliedIndex > 0);
    assert.equal(cluster.fatal, []);
  });

test('a clean stop keeps everything; every server restarts from its files', async () => {
  const cluster = new SimCluster({ seed: 23, layout });
  await cluster.startAll();
  const admin = cluster.clerk('admin-0');
  await joinAndWrite(cluster, admin);
  const applied = new Map(cluster.names.map((name) =>
    [name, cluster.servers.get(name)!.status()!.appliedIndex]));
  for (const name of cluster.names) await cluster.stop(name);
  assert.is(cluster.servers.get('ctl-0')!.status(), null, 'a stopped server reports nothing');
  for (const name of cluster.names) await cluster.start(name);
  // Before any new election, each server applied what its saved commit index covers.
  for (const name of cluster.names) {
    const status = cluster.servers.get(name)!.status()!;
    assert.is(status.role, 'follower');
    assert.ok(status.appliedIndex <= applied.get(name)!, name);
  }
  const deadline = cluster.clock.now() + limitMs;
  for (const key of keys) {
    assert.equal(await cluster.settle(admin.get(key, deadline), limitMs),
      { status: 'ok', value: `${key}-value` });
  }
  assert.equal(cluster.fatal, []);
});

test.run();
