// The shard controller with real processes, after MIT 6.5840's shardctrler tests, with the
// stronger checks: exact server lists, exactly one configuration per join / leave, shards moved
// exactly where `move` says, truly minimal movement after every change (the lower bound below,
// computed here independently of spec/controller), histories that survive killing each
// controller server in turn and a leader change. Groups of one server keep 20 gids cheap.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Config } from '../../spec/controller/index.js';
import type { ClerkSession } from '../../impl/process/clerk-session.js';
import { okValue, TestCluster } from './harness.js';

const shardCount = 10;
let cluster: TestCluster;
let admin: ClerkSession;

test.before(async () => {
  cluster = await TestCluster.start({
    groups: 20, servers: 1, controllers: 3, shards: shardCount,
  });
  admin = await cluster.clerk('admin');
});

test.after(async () => {
  await cluster?.destroy();
});

const servers = (gid: number) => [`g${gid}-0`];

async function query(num: number, session = admin): Promise<Config> {
  return okValue(await session.clerk.query(num, session.deadline(20)), `query ${num}`).config;
}

async function history(session = admin): Promise<Config[]> {
  const latest = await query(-1, session);
  const configs: Config[] = [];
  for (let num = 0; num <= latest.num; num++) configs.push(await query(num, session));
  return configs;
}

/** MIT's check: every shard assigned to a member, and to some group whenever there is one. */
function checkAssigned(config: Config): void {
  const members = Object.keys(config.groups).map(Number);
  for (const gid of config.shards) {
    if (members.length === 0) assert.is(gid, 0, `config ${config.num}`);
    else assert.ok(members.includes(gid), `config ${config.num}: shard on non-member ${gid}`);
  }
  const counts = members.map((gid) => config.shards.filter((owner) => owner === gid).length);
  if (members.length > 0) {
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `config ${config.num} unbalanced`);
  }
}

/**
 * The fewest shards any balanced assignment of `next`'s groups must move away from `previous`:
 * the shards of departed (or no) groups, plus what staying groups hold beyond their target
 * (the larger targets go to the groups holding most, which is optimal).
 */
function minimalMoves(previous: Config, next: Config): number {
  const members = Object.keys(next.groups).map(Number);
  // Leaving every group unassigns every shard (gid 0).
  if (members.length === 0) return previous.shards.filter((gid) => gid !== 0).length;
  const orphans = previous.shards.filter((gid) => !members.includes(gid)).length;
  const held = members.map((gid) => previous.shards.filter((owner) => owner === gid).length)
    .sort((a, b) => b - a);
  const floor = Math.floor(shardCount / members.length);
  const larger = shardCount % members.length;
  const excess = held.reduce(
    (sum, count, rank) => sum + Math.max(0, count - (floor + (rank < larger ? 1 : 0))), 0);
  return orphans + excess;
}

function moved(previous: Config, next: Config): number {
  return next.shards.filter((gid, shard) => gid !== previous.shards[shard]).length;
}

function checkHistory(configs: readonly Config[]): void {
  configs.forEach((config, num) => {
    assert.is(config.num, num);
    checkAssigned(config);
    if (num > 0) {
      const previous = configs[num - 1]!;
      const sameGroups = JSON.stringify(Object.keys(previous.groups)) ===
        JSON.stringify(Object.keys(config.groups));
      // A move changes one shard by hand; joins and leaves must move the fewest possible.
      if (!sameGroups) {
        assert.is(moved(previous, config), minimalMoves(previous, config), `config ${num}`);
      }
    }
  });
}

test('10 concurrent clerks each join, join, leave; the result is balanced and minimal',
  async () => {
    const clerks = await Promise.all(Array.from({ length: 10 }, () => cluster.clerk('admin')));
    await Promise.all(clerks.map(async (session, index) => {
      const first = 100 + index;
      const second = 110 + index;
      const deadline = () => session.deadline(30);
      okValue(await session.clerk.join({ [first]: servers(first) }, deadline()), `join ${first}`);
      okValue(await session.clerk.join({ [second]: servers(second) }, deadline()), 'join');
      okValue(await session.clerk.leave([second], deadline()), `leave ${second}`);
    }));
    const latest = await query(-1);
    assert.is(latest.num, 30, 'one configuration per join and leave');
    const expected = Object.fromEntries(
      Array.from({ length: 10 }, (_, index) => [100 + index, servers(100 + index)]));
    assert.equal(latest.groups, expected);
    checkHistory(await history());
  });

test('multi-group leave and join: one configuration each, exact server lists', async () => {
  const before = await query(-1);
  const gids = Array.from({ length: 10 }, (_, index) => String(100 + index));
  const left = await cluster.ok<{ num: number; shards: number[]; groups: object }>(
    'ctl', 'leave', ...gids);
  assert.is(left.num, before.num + 1);
  assert.equal(left.groups, {});
  assert.equal(left.shards, Array(shardCount).fill(0));
  const joined = await cluster.ok<{ num: number; groups: object }>(
    'ctl', 'join', '100', '101', '102');
  assert.is(joined.num, before.num + 2);
  assert.equal(joined.groups, { 100: servers(100), 101: servers(101), 102: servers(102) });
  const one = await cluster.ok<{ num: number; groups: object }>('ctl', 'leave', '101', '102');
  assert.equal(one.groups, { 100: servers(100) });
  assert.equal((await query(-1)).shards, Array(shardCount).fill(100));
  const two = await cluster.ok<{ num: number; shards: number[] }>('ctl', 'join', '101');
  assert.is(two.num, one.num + 1);
  assert.is(two.shards.filter((gid) => gid === 101).length, 5);
  checkHistory(await history());
});

test('move: shards 0-4 to one gid and 5-9 to the other, exactly; no-op moves record nothing',
  async () => {
    for (let shard = 0; shard < shardCount; shard++) {
      await cluster.ok('ctl', 'move', String(shard), shard < 5 ? '100' : '101');
    }
    const latest = await query(-1);
    assert.equal(latest.shards, [100, 100, 100, 100, 100, 101, 101, 101, 101, 101]);
    const again = await cluster.ok<{ num: number }>('ctl', 'move', '3', '100');
    assert.is(again.num, latest.num, 'a move to the current owner makes no configuration');
    const refused = await cluster.cli('ctl', 'move', '3', '105', '--json');
    assert.is(refused.code, 1);
    assert.is(refused.json<{ ok: boolean }>().ok, false);
    assert.is((await query(-1)).num, latest.num, 'a refused move records nothing');
    const bad = await cluster.cli('ctl', 'move', 'three', '100');
    assert.is(bad.code, 2);
    const refusals = [['join', '100'], ['join', '999'], ['leave', '105'], ['move', '10', '100']];
    for (const argv of refusals) {
      const run = await cluster.cli('ctl', argv[0]!, ...argv.slice(1), '--json');
      assert.is(run.code, 1, `ctl ${argv.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^shardkv ctl \w+: \S/);
    }
    assert.is((await query(-1)).num, latest.num, 'refused requests record nothing');
  });

test('historical queries are identical after killing each controller server in turn',
  async () => {
    const expected = await history();
    for (const name of cluster.cluster.file.controllers) {
      await cluster.kill(name);
      const session = await cluster.clerk('admin');
      assert.equal(await history(session), expected, `with ${name} down`);
      await session.close();
      await cluster.restart(name);
    }
  });

test('a new leader serves the same configurations; join from a client is refused',
  async () => {
    const expected = await history();
    const leader = await cluster.leaderOf('ctl');
    await cluster.kill(leader);
    const successor = await cluster.leaderOf('ctl');
    assert.not.equal(successor, leader);
    const session = await cluster.clerk('admin');
    assert.equal(await history(session), expected);
    await cluster.restart(leader);
    const client = await cluster.clerk('client');
    const refused = await client.clerk.join({ 103: servers(103) }, client.deadline(10));
    assert.equal(refused, { status: 'refused', error: 'not authorized' });
    assert.is((await query(-1)).num, expected.at(-1)!.num, 'the refused join recorded nothing');
  });

test.run();
