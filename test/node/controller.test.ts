// The node shell runs the controller group (DESIGN §5): three replicas over the simulated
// adapters elect one leader (Raft §5.2) and serve a clerk's register, join and query.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { layoutOf, SimCluster } from './sim-cluster.js';

const layout = layoutOf(3, [100, 101], 3, 10);

test('a controller group of 3 elects exactly one leader and keeps it (Raft §5.2)', async () => {
  const cluster = new SimCluster({ seed: 1, layout });
  for (const name of layout.controllers) await cluster.start(name);
  await cluster.run(2_000);
  const leaders = cluster.leaders(layout.controllers);
  assert.is(leaders.length, 1);
  const terms = layout.controllers.map((name) => cluster.servers.get(name)!.status()!.term);
  assert.ok(terms.every((term) => term === terms[0]), `terms ${terms.join(',')}`);
  // The leader's no-op is committed and applied everywhere.
  for (const name of layout.controllers) {
    const status = cluster.servers.get(name)!.status()!;
    assert.ok(status.appliedIndex >= 1, `${name} applied ${status.appliedIndex}`);
    assert.equal(status.shards, []);
  }
  const before = leaders[0];
  await cluster.run(5_000);
  assert.equal(cluster.leaders(layout.controllers), [before], 'a quiet cluster keeps its leader');
  assert.equal(cluster.fatal, []);
});

test('a clerk registers, joins two groups and queries the configuration', async () => {
  const cluster = new SimCluster({ seed: 2, layout });
  for (const name of layout.controllers) await cluster.start(name);
  const admin = cluster.clerk('admin-0');
  const deadline = () => cluster.clock.now() + 5_000;
  const registered = await cluster.settle(admin.register(deadline()), 6_000);
  assert.equal(registered, { status: 'ok', value: 0 });
  const joined = await cluster.settle(
    admin.join({ 100: layout.groups[100]!, 101: layout.groups[101]! }, deadline()), 6_000);
  assert.is(joined.status, 'ok');
  const queried = await cluster.settle(admin.query(-1, deadline()), 6_000);
  assert.is(queried.status, 'ok');
  if (queried.status !== 'ok') return;
  assert.is(queried.value.config.num, 1);
  // Ten shards over two groups: five each (Balanced), and every shard assigned.
  const counts = [100, 101].map((gid) =>
    queried.value.config.shards.filter((owner) => owner === gid).length);
  assert.equal(counts, [5, 5]);
  assert.equal(queried.value.config.groups[100], ['g100-0', 'g100-1', 'g100-2']);
  const first = await cluster.settle(admin.query(0, deadline()), 6_000);
  assert.equal(first, {
    status: 'ok',
    value: { config: { num: 0, shards: Array(10).fill(0), groups: {} }, published: true },
  });
  const client = cluster.clerk('client-1');
  const refused = await cluster.settle(client.leave([100], deadline()), 6_000);
  assert.equal(refused, { status: 'refused', error: 'not authorized' });
  const unknownGroup = await cluster.settle(admin.leave([555], deadline()), 6_000);
  assert.is(unknownGroup.status, 'refused');
  assert.equal(cluster.fatal, []);
});

test.run();
