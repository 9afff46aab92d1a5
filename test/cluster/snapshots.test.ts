// Snapshots and garbage collection with real processes and `--max-raft-state 1000` (MIT
// 6.5840's snapshot test, and CONTRACT's bounds): 30 keys survive joins, leaves and every
// group killed and restarted from its snapshot; at every status a node's logBytes stays within
// 8 x 1000; and once 1,000-byte values have moved back and forth between groups, what the group
// servers keep (logBytes + snapshotBytes) settles within 3 x 1.5 x the live bytes + 30 KiB.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClerkSession } from '../../impl/process/clerk-session.js';
import type { NodeReport } from '../../impl/process/cluster-status.js';
import { eventually, keyOfShard, okValue, TestCluster } from './harness.js';

const maxRaftStateBytes = 1000;
let cluster: TestCluster;
let client: ClerkSession;
const expected = new Map<string, string>();

test.before(async () => {
  cluster = await TestCluster.start({ groups: 2, servers: 3, controllers: 3, maxRaftStateBytes });
  client = await cluster.clerk();
});

test.after(async () => {
  await cluster?.destroy();
});

async function statusWithinLogBound(): Promise<NodeReport[]> {
  const status = await cluster.status();
  for (const node of status) {
    if (node.logBytes !== null) {
      assert.ok(node.logBytes <= 8 * maxRaftStateBytes, `${node.name}: ${node.logBytes} bytes`);
    }
  }
  return status;
}

async function checkAll(step: string): Promise<void> {
  for (const [key, value] of expected) {
    assert.is(okValue(await client.clerk.get(key, client.deadline(30)), `${step} ${key}`), value,
      `${step}: ${key}`);
  }
  await statusWithinLogBound();
}

const change = (subcommand: string, ...args: string[]) =>
  cluster.ok('ctl', subcommand, ...args, '--wait', '--timeout', '60');

test('30 keys survive joins, leaves and every group killed and restarted', async () => {
  await change('join', '100');
  for (let index = 0; index < 30; index++) {
    const key = keyOfShard(index % 10, `-snap-${index}`);
    const value = `value-${index}-${'s'.repeat(40)}`;
    okValue(await client.clerk.put(key, value, client.deadline(30)), `put ${key}`);
    expected.set(key, value);
  }
  await change('join', '101');
  await checkAll('join-101');
  for (const gid of [100, 101]) {
    await cluster.killAtOnce(cluster.groupServers(gid));
    for (const name of cluster.groupServers(gid)) await cluster.restart(name);
    await checkAll(`restart-${gid}`);
  }
  const snapshots = (await statusWithinLogBound()).filter((node) => node.snapshotBytes! > 0);
  assert.ok(snapshots.length >= 6, `${snapshots.length} nodes hold a snapshot`);
  await change('leave', '100');
  await checkAll('leave-100');
  await cluster.killAtOnce(cluster.nodes);
  for (const name of cluster.nodes) await cluster.restart(name);
  await checkAll('all-restarted');
});

test('garbage collection: kept bytes settle within the bound after values move back and forth',
  async () => {
    await change('join', '100');
    for (let index = 0; index < 25; index++) {
      const key = keyOfShard(index % 10, `-gc-${index}`);
      const value = String(index % 10).repeat(1000);
      okValue(await client.clerk.put(key, value, client.deadline(30)), `put ${key}`);
      expected.set(key, value);
    }
    for (let round = 0; round < 2; round++) {
      await change('leave', '101');
      await change('join', '101');
      await change('move', '0', round === 0 ? '101' : '100');
    }
    await checkAll('moved');
    const liveBytes = [...expected].reduce(
      (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0);
    const bound = 3 * 1.5 * liveBytes + 30 * 1024;
    let kept = 0;
    await eventually(`group servers to keep at most ${bound} bytes`, async () => {
      const status = await statusWithinLogBound();
      kept = status.filter((node) => node.name.startsWith('g'))
        .reduce((sum, node) => sum + node.logBytes! + node.snapshotBytes!, 0);
      return kept <= bound;
    }, 30_000);
    assert.ok(kept > 2 * liveBytes, `${kept} bytes cannot hold two copies of ${liveBytes}`);
  });

test.run();
