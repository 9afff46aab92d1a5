// Issue 21's disk bound per replica, on real processes with `--max-raft-state 65536`: after
// 1,000-byte values have moved back and forth between two groups and been overwritten (the
// log grows, the live data does not), once the cluster is quiet every group server keeps
// (logBytes + snapshotBytes) at most 1.5 x the live bytes of the shards it serves + 32 KiB,
// and its data directory holds no more than those (no snapshot left beside a newer one).
// Before the log was compacted relative to the snapshot (impl/node/snapshot-policy.ts), each
// group's overwrites stayed in its log under the 64 KiB bound: 3-4 x what it served.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClerkSession } from '../../impl/process/clerk-session.js';
import type { NodeReport } from '../../impl/process/cluster-status.js';
import { key2shard } from '../../spec/group/digest.js';
import { replicaDisks, replicaOverheadBytes, type ReplicaDisk } from
  '../../bench/cluster/replica-disk.js';
import { keyOfShard, okValue, TestCluster } from './harness.js';

const shardCount = 10;
const maxRaftStateBytes = 65_536;
const valueBytes = 1_000;
const keysPerShard = 2;
/** Overwrites of every key after the last move: about 33 KB of log per group. */
const finalOverwrites = 3;

let cluster: TestCluster;
let client: ClerkSession;
/** key -> its value now. */
const values = new Map<string, string>();

test.before(async () => {
  cluster = await TestCluster.start({
    groups: 2, servers: 3, controllers: 3, shards: shardCount, maxRaftStateBytes,
  });
  client = await cluster.clerk();
});

test.after(async () => {
  await cluster?.destroy();
});

const change = (subcommand: string, ...args: string[]) =>
  cluster.ok('ctl', subcommand, ...args, '--wait', '--timeout', '60');

/** Puts a new value (its round in the first bytes) under every key. */
async function overwriteAll(round: number): Promise<void> {
  for (let shard = 0; shard < shardCount; shard++) {
    for (let index = 0; index < keysPerShard; index++) {
      const key = keyOfShard(shard, `-disk-${index}`);
      const value = `${round}:`.padEnd(valueBytes, String(shard));
      okValue(await client.clerk.put(key, value, client.deadline(30)), `put ${key}`);
      values.set(key, value);
    }
  }
}

function liveOfShard(shard: number): number {
  let bytes = 0;
  for (const [key, value] of values) {
    if (key2shard(key, shardCount) === shard) bytes += Buffer.byteLength(key) + value.length;
  }
  return bytes;
}

/** The bytes of the files in a node's data directory. */
function dataDirectoryBytes(name: string): number {
  const directory = cluster.cluster.paths.dataDirectory(name);
  return readdirSync(directory).reduce((sum, file) => sum + statSync(join(directory, file)).size,
    0);
}

const groupServers = () => new Set([100, 101].flatMap((gid) => cluster.groupServers(gid)));

/** Each group server's figures, as `cluster status` reports them now. */
async function replicasNow(): Promise<ReplicaDisk[]> {
  const reports: NodeReport[] = await cluster.status();
  return replicaDisks(reports, groupServers(), liveOfShard);
}

test('every replica keeps at most 1.5 x the live bytes it serves + 32 KiB once quiet',
  async () => {
    await change('join', '100');
    await change('join', '101');
    await overwriteAll(0);
    for (let round = 1; round <= 2; round++) {
      // Shards 0-4 move to the other group and back, one migration at a time.
      const owner = round % 2 === 1 ? '101' : '100';
      for (let shard = 0; shard < 5; shard++) await change('move', String(shard), owner);
      await overwriteAll(round);
    }
    for (let round = 3; round < 3 + finalOverwrites; round++) await overwriteAll(round);
    for (const [key, value] of values) {
      assert.is(okValue(await client.clerk.get(key, client.deadline(30)), key), value);
    }
    // Quiet: two readings a second apart agree (the last snapshots are durable).
    let disks: ReplicaDisk[] = [];
    let reading: string | null = null;
    for (let attempt = 0; ; attempt++) {
      assert.ok(attempt < 30, `the group servers' sizes still moved after 30 s: ${reading}`);
      disks = await replicasNow();
      const text = JSON.stringify(disks);
      if (disks.length === 6 && text === reading) break;
      reading = text;
      await sleep(1_000);
    }
    const served = disks.reduce((sum, disk) => sum + disk.liveBytes, 0);
    assert.is(served, 3 * [...Array(shardCount).keys()].reduce((sum, shard) =>
      sum + liveOfShard(shard), 0), 'every shard is served by the three servers of one group');
    for (const disk of disks) {
      assert.ok(disk.liveBytes > 5 * keysPerShard * valueBytes / 2, `${disk.name} serves data`);
      assert.ok(disk.diskBytes <= disk.boundBytes,
        `${disk.name}: ${disk.diskBytes} bytes for ${disk.liveBytes} live bytes, over 1.5 x ` +
        `live + ${replicaOverheadBytes}`);
      // The snapshot alone holds every live byte it serves.
      assert.ok(disk.diskBytes >= disk.liveBytes, `${disk.name}: ${disk.diskBytes} bytes`);
      // Its files hold no more (logBytes counts a hard state buffered for the next sync too).
      const files = dataDirectoryBytes(disk.name);
      assert.ok(files <= disk.diskBytes && files > disk.diskBytes - 1_024,
        `${disk.name}: ${files} bytes of files for ${disk.diskBytes} reported`);
    }
  });

test.run();
