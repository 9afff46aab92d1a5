// Snapshots prepared in the background (issue 27, ServerEnvironment.pause) in the simulator:
// with a pause of simulated time between pieces, other steps run while a snapshot is written,
// and the log bound, the snapshot sent to a lagging follower, and restarts (after a crash in
// the middle of a preparation, too) hold as they do when the step writes the snapshot.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Clerk } from '../../impl/clerk/clerk.js';
import { layoutOf, SimCluster } from './sim-cluster.js';

const layout = layoutOf(1, [100], 3, 10);
const limitMs = 30_000;
const bound = 2_000;
const servers = layout.groups[100]!;

async function joinedCluster(seed: number): Promise<{ cluster: SimCluster; admin: Clerk }> {
  const cluster = new SimCluster({
    seed, layout, tuning: { maxRaftStateBytes: bound }, recordSteps: true, pauseMs: 3,
    syncDelayMs: 2,
  });
  await cluster.startAll();
  const admin = cluster.clerk('admin-0');
  const deadline = cluster.clock.now() + limitMs;
  assert.is((await cluster.settle(admin.join({ 100: servers }, deadline), limitMs)).status, 'ok');
  assert.is((await cluster.settle(admin.waitPublished(1, deadline), limitMs)).status, 'ok');
  return { cluster, admin };
}

/** The prepared snapshot files a server's directory holds. */
async function preparedFiles(cluster: SimCluster, name: string): Promise<string[]> {
  const names = await cluster.disks.get(name)!.mount().list(`/nodes/${name}`);
  return names.filter((file) => file.endsWith('.prepared'));
}

test('prepared snapshots: logs bounded, a lagging follower is sent one, restarts recover',
  async () => {
    const { cluster, admin } = await joinedCluster(31);
    const leader = cluster.leaders(servers)[0]!;
    const absent = servers.find((name) => name !== leader)!;
    cluster.crash(absent);
    let largestLog = 0;
    const deadline = cluster.clock.now() + limitMs;
    let expected = '';
    for (let round = 0; round < 80; round++) {
      // Each a few hundred bytes: a snapshot comes due every few writes.
      const piece = `${round}:${'x'.repeat(200)},`;
      expected += piece;
      const outcome = await cluster.settle(admin.append('a', piece, deadline), limitMs);
      assert.is(outcome.status, 'ok');
      for (const name of servers) {
        largestLog = Math.max(largestLog, cluster.servers.get(name)!.status()?.logBytes ?? 0);
      }
    }
    assert.ok(largestLog <= 8 * bound, `a log grew to ${largestLog} bytes`);
    const taken = cluster.steps.filter((record) => record.node === leader &&
      (record.input as { type?: string }).type === 'snapshot');
    assert.ok(taken.length >= 5, `the leader took ${taken.length} snapshots`);
    await cluster.start(absent);
    await cluster.run(2_000);
    const installs = cluster.steps.filter((record) => record.node === absent &&
      JSON.stringify(record.input).includes('InstallSnapshotRequest'));
    assert.ok(installs.length >= 1, 'the leader sent its snapshot to the lagging server');
    for (const name of servers) {
      const view = cluster.servers.get(name)!.view();
      assert.ok(view?.kind === 'group');
      assert.is(view.state.shards[7]!.kv.get('a'), expected, name);
      assert.equal(await preparedFiles(cluster, name), [], `${name}: none left untaken`);
    }
    // Crashes while writes go on (so while some preparation runs), then restarts.
    for (const [round, victim] of servers.entries()) {
      const writing = admin.append('a', `crash-${round},`, cluster.clock.now() + limitMs);
      await cluster.run(5 + 7 * round);
      cluster.crash(victim);
      assert.is((await cluster.settle(writing, limitMs)).status, 'ok');
      expected += `crash-${round},`;
      const restarted = await cluster.start(victim);
      assert.equal(await preparedFiles(cluster, victim), [], 'load removed any leftover');
      assert.ok(restarted.status() !== null);
    }
    await cluster.run(2_000);
    const read = await cluster.settle(admin.get('a', cluster.clock.now() + limitMs), limitMs);
    assert.equal(read, { status: 'ok', value: expected });
    for (const name of servers) {
      const view = cluster.servers.get(name)!.view();
      assert.ok(view?.kind === 'group');
      assert.is(view.state.shards[7]!.kv.get('a'), expected, `${name} after the restarts`);
    }
    assert.equal(cluster.fatal, []);
  });

test.run();
