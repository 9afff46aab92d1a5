// Unaffected and partial migration with real processes (DESIGN §3 UnaffectedServed; MIT
// 6.5840's challenge tests): while a killed group holds shards that cannot move, every key on a
// live group stays readable and writable, whether it was there already or has just arrived.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClerkSession } from '../../impl/process/clerk-session.js';
import { keyOfShard, okValue, TestCluster } from './harness.js';

let cluster: TestCluster;
let client: ClerkSession;

test.before(async () => {
  cluster = await TestCluster.start({ groups: 3, servers: 3, controllers: 3 });
  client = await cluster.clerk();
});

test.after(async () => {
  await cluster?.destroy();
});

test('with a group down mid-reconfiguration, every shard on a live group is served',
  async () => {
    await cluster.ok('ctl', 'join', '100', '101', '--wait');
    const before = okValue(await client.clerk.query(-1, client.deadline(10)), 'query').config;
    for (let shard = 0; shard < 10; shard++) {
      okValue(await client.clerk.put(keyOfShard(shard, ''), `v${shard}`, client.deadline(20)),
        `put shard ${shard}`);
    }
    await cluster.killAtOnce(cluster.groupServers(101));
    const joined = await cluster.ok<{ num: number; shards: number[]; published: boolean }>(
      'ctl', 'join', '102');
    const stuck = before.shards.flatMap((gid, shard) => (gid === 101 ? [shard] : []));
    const arrived = joined.shards.flatMap(
      (gid, shard) => (gid === 102 && before.shards[shard] === 100 ? [shard] : []));
    const stayed = joined.shards.flatMap((gid, shard) => (gid === 100 ? [shard] : []));
    assert.ok(arrived.length > 0 && stayed.length > 0 && stuck.length > 0,
      `arrived ${arrived}, stayed ${stayed}, stuck ${stuck}`);
    for (const shard of [...stayed, ...arrived]) {
      const key = keyOfShard(shard, '');
      assert.is(okValue(await client.clerk.get(key, client.deadline(30)), `get ${key}`),
        `v${shard}`, `shard ${shard}`);
      okValue(await client.clerk.append(key, '+', client.deadline(30)), `append ${key}`);
      assert.is(okValue(await client.clerk.get(key, client.deadline(30)), key), `v${shard}+`);
    }
    // A write to a stuck shard cannot be answered: exit 1 at the timeout, outcome unknown.
    const stuckKey = keyOfShard(stuck[0]!, '');
    const waited = await cluster.cli('kv', 'put', stuckKey, 'lost?', '--timeout', '2');
    assert.is(waited.code, 1);
    // The reason the clerk saw (the dead group's servers unreachable) may sit in brackets.
    assert.match(waited.stderr,
      /no answer within 2 s( \(.*\))?; the put may or may not have taken effect/);
    const pending = okValue(await client.clerk.query(joined.num, client.deadline(10)), 'query');
    assert.is(pending.published, false, 'the shards of the dead group cannot have moved');
    for (const name of cluster.groupServers(101)) await cluster.restart(name);
    const published = await client.clerk.waitPublished(joined.num, client.deadline(60));
    assert.is(okValue(published, 'publish').published, true, 'published once the group is back');
    for (let shard = 0; shard < 10; shard++) {
      const key = keyOfShard(shard, '');
      const value = `v${shard}${stuck.includes(shard) ? '' : '+'}`;
      assert.is(okValue(await client.clerk.get(key, client.deadline(30)), key), value);
    }
  });

test.run();
