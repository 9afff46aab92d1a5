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

test.run();
