// The sharded store with real processes, after MIT 6.5840's shardkv tests: static shards with
// one group down (exactly the keys of live groups answer, with their values), join then leave
// with values checked and appended at each step, and a server of every group killed across
// configuration changes and restarted. One cluster of three groups of three for the file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClerkSession } from '../../impl/process/clerk-session.js';
import { eventually, keyOfShard, okValue, TestCluster } from './harness.js';

let cluster: TestCluster;
let client: ClerkSession;
/** What every key must read: the test's own record of acknowledged writes. */
const expected = new Map<string, string>();

test.before(async () => {
  cluster = await TestCluster.start({ groups: 3, servers: 3, controllers: 3 });
  client = await cluster.clerk();
});

test.after(async () => {
  await cluster?.destroy();
});

async function put(key: string, value: string): Promise<void> {
  okValue(await client.clerk.put(key, value, client.deadline(30)), `put ${key}`);
  expected.set(key, value);
}

async function append(key: string, value: string): Promise<void> {
  okValue(await client.clerk.append(key, value, client.deadline(30)), `append ${key}`);
  expected.set(key, (expected.get(key) ?? '') + value);
}

/** Every key reads its expected value, then gets one more append. */
async function checkAndAppend(step: string): Promise<void> {
  for (const [key, value] of [...expected]) {
    const read = okValue(await client.clerk.get(key, client.deadline(30)), `${step}: get ${key}`);
    assert.is(read, value, `${step}: ${key}`);
    await append(key, `.${step}`);
  }
}

async function changeAndWait(subcommand: string, ...args: string[]): Promise<void> {
  await cluster.ok('ctl', subcommand, ...args, '--wait', '--timeout', '60');
}

test('static shards: with one group down, exactly the keys of live groups answer', async () => {
  await changeAndWait('join', '100', '101');
  for (let shard = 0; shard < 10; shard++) await put(keyOfShard(shard, '-static'), `v${shard}`);
  const config = okValue(await client.clerk.query(-1, client.deadline(10)), 'query').config;
  await cluster.killAtOnce(cluster.groupServers(101));
  const answered: number[] = [];
  const probe = await cluster.clerk();
  await Promise.all(Array.from({ length: 10 }, async (_, shard) => {
    const key = keyOfShard(shard, '-static');
    const outcome = await probe.clerk.get(key, probe.deadline(shard % 2 === 0 ? 15 : 3));
    if (outcome.status === 'ok') {
      assert.is(outcome.value, `v${shard}`);
      answered.push(shard);
    }
  }));
  const live = config.shards.flatMap((gid, shard) => (gid === 100 ? [shard] : []));
  assert.equal(answered.sort((a, b) => a - b), live);
  await probe.close();
  for (const name of cluster.groupServers(101)) await cluster.restart(name);
  await checkAndAppend('restarted');
});

test('join then leave: values checked and appended after every change', async () => {
  for (let index = 0; index < 10; index++) await put(keyOfShard(index, '-join'), `j${index}`);
  await changeAndWait('join', '102');
  await checkAndAppend('join-102');
  await changeAndWait('leave', '100');
  await checkAndAppend('leave-100');
  await changeAndWait('leave', '101');
  await checkAndAppend('leave-101');
  await changeAndWait('join', '100', '101');
  await checkAndAppend('join-100-101');
});

test('a server of every group killed across configuration changes, then restarted',
  async () => {
    const victims = ['ctl-1', 'g100-0', 'g101-1', 'g102-2'];
    for (const name of victims) await cluster.kill(name);
    await changeAndWait('leave', '102');
    await checkAndAppend('killed-leave');
    await changeAndWait('join', '102');
    await checkAndAppend('killed-join');
    for (const name of victims) await cluster.restart(name);
    await changeAndWait('move', '0', '102');
    await checkAndAppend('restarted-move');
    const owners = okValue(await client.clerk.query(-1, client.deadline(10)), 'query');
    assert.ok(owners.published);
    const servedBy = (gid: number) =>
      owners.config.shards.flatMap((owner, shard) => (owner === gid ? [shard] : []));
    // Every live member of a group reports the shards its applied state serves (a restarted
    // follower once it has caught up).
    const expectedShards = (name: string) =>
      (name.startsWith('ctl') ? [] : servedBy(Number(name.slice(1, 4))));
    await eventually('every server to report the shards of its group', async () => {
      const status = await cluster.status();
      return status.every((node) => node.alive &&
        JSON.stringify(node.shards) === JSON.stringify(expectedShards(node.name)));
    });
  });

test.run();
