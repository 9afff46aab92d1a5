// `shardkv cluster` with real processes (CONTRACT, "The cluster"): the files start writes, the
// status JSON, kill / restart (also concurrently on one DIR), stop leaving no process, and the
// exit codes of a DIR with or without a cluster.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withClusterLock } from '../../impl/process/lock.js';
import { isNodeProcess, runningPid } from '../../impl/process/pids.js';
import { runCli } from '../helpers/cli.js';
import { eventually, TestCluster } from './harness.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await TestCluster.start({ groups: 2, servers: 3, controllers: 3 });
});

test.after(async () => {
  await cluster?.destroy();
});

const statusKeys = ['name', 'pid', 'alive', 'role', 'term', 'commitIndex', 'logBytes',
  'snapshotBytes', 'shards', 'reason'];

test('start writes the cluster file and both secrets readable by their owner only', () => {
  for (const secret of ['cluster.secret', 'client.secret']) {
    assert.is(statSync(join(cluster.directory, secret)).mode & 0o777, 0o600, secret);
  }
  assert.equal(cluster.nodes, ['ctl-0', 'ctl-1', 'ctl-2', 'g100-0', 'g100-1', 'g100-2',
    'g101-0', 'g101-1', 'g101-2']);
  assert.equal(cluster.groupServers(101), ['g101-0', 'g101-1', 'g101-2']);
});

test('status --json: every node alive, one controller leader, exactly the fields', async () => {
  const status = await cluster.ok<{ nodes: Record<string, unknown>[] }>('cluster', 'status');
  assert.equal(Object.keys(status), ['nodes']);
  assert.is(status.nodes.length, 9);
  for (const node of status.nodes) {
    assert.equal(Object.keys(node), statusKeys);
    assert.is(node['alive'], true);
    assert.ok(['leader', 'follower', 'candidate'].includes(node['role'] as string));
    assert.ok(Number.isInteger(node['pid']));
  }
  const controllers = status.nodes.filter((node) => String(node['name']).startsWith('ctl-'));
  assert.ok(controllers.some((node) => node['role'] === 'leader'));
  for (const node of controllers) assert.equal(node['shards'], []);
});

test('kill: the process is gone, status reports it dead with nulls; restart brings it back',
  async () => {
    const pid = await cluster.kill('g100-1');
    assert.not.ok(isNodeProcess(cluster.cluster.paths, 'g100-1', pid));
    const dead = (await cluster.status()).find((node) => node.name === 'g100-1')!;
    assert.equal(dead, { name: 'g100-1', pid: null, alive: false, role: null, term: null,
      commitIndex: null, logBytes: null, snapshotBytes: null, shards: null, reason: null });
    const again = await cluster.cli('cluster', 'kill', '--node', 'g100-1');
    assert.is(again.code, 1);
    assert.match(again.stderr, 'g100-1 is not running');
    const restarted = await cluster.restart('g100-1');
    assert.is(restarted.alive, true);
    assert.ok(restarted.pid !== pid);
  });

test('concurrent kill and restart calls on one DIR leave each node in one clear state',
  async () => {
    const runs = await Promise.all([
      cluster.cli('cluster', 'kill', '--node', 'g101-0'),
      cluster.cli('cluster', 'restart', '--node', 'g101-0'),
      cluster.cli('cluster', 'kill', '--node', 'g101-0'),
      cluster.cli('cluster', 'restart', '--node', 'g101-1'),
      cluster.cli('cluster', 'kill', '--node', 'g101-1'),
    ]);
    for (const run of runs) {
      assert.ok(run.code === 0 || /not running/.test(run.stderr), `${run.code} ${run.stderr}`);
    }
    const pids = (await cluster.status()).map((node) => node.pid).filter((pid) => pid !== null);
    assert.is(new Set(pids).size, pids.length, 'no node runs twice');
    for (const name of ['g101-0', 'g101-1']) {
      if (runningPid(cluster.cluster.paths, name) === null) await cluster.restart(name);
    }
    const after = await cluster.status();
    const dead = after.filter((node) => !node.alive).map((node) => node.name);
    assert.equal(dead, [], `dead after the restarts: ${dead}`);
  });

test('kv on a cluster with no group joined: exit 1 after --timeout, with the reason',
  async () => {
    const run = await cluster.cli('kv', 'put', 'k', 'v', '--timeout', '1', '--json');
    assert.is(run.code, 1);
    // No group serves the shard, so no request left: the clerk knows nothing was written.
    assert.match(run.json<{ error: string }>().error,
      'shardkv kv put: put: shard 7 is unassigned in configuration 0 (no group serves it); ' +
      'no request was sent');
  });

test('commands given a DIR without a cluster exit 2; start on a cluster DIR exits 2', async () => {
  for (const argv of [['cluster', 'status'], ['cluster', 'stop'], ['ctl', 'query'],
    ['kv', 'get', 'k']]) {
    const run = await runCli(...argv, '--dir', join(cluster.directory, 'nodes'));
    assert.is(run.code, 2, argv.join(' '));
    assert.match(run.stderr, 'holds no cluster');
  }
  const again = await cluster.cli('cluster', 'start');
  assert.is(again.code, 2);
  assert.match(again.stderr, 'already holds a cluster');
  assert.is((await cluster.cli('cluster', 'kill', '--node', 'g999-0')).code, 2);
  assert.is((await cluster.cli('cluster', 'frobnicate')).code, 2);
  assert.is((await cluster.cli('cluster', 'net', '--unreliable', 'maybe')).code, 2);
});

test('isolate cuts the controller leader off (another is elected); heal brings it back',
  async () => {
    const leader = await cluster.leaderOf('ctl');
    const term = (await cluster.status()).find((node) => node.name === leader)!.term!;
    await cluster.ok('cluster', 'isolate', '--node', leader);
    await eventually('another controller to lead in a later term', async () => {
      const status = await cluster.status();
      return status.some((node) => node.name.startsWith('ctl-') && node.name !== leader &&
        node.role === 'leader' && node.term! > term);
    });
    const query = await cluster.ok<{ num: number }>('ctl', 'query', '--timeout', '20');
    assert.is(query.num, 0);
    const healed = await cluster.ok<{ isolated: string[] }>('cluster', 'heal');
    assert.equal(healed.isolated, []);
    await eventually('the isolated leader to follow the new term', async () => {
      const status = await cluster.status();
      const old = status.find((node) => node.name === leader)!;
      const current = status.find((node) => node.role === 'leader' && node.name.startsWith('ctl'));
      return old.role === 'follower' && current !== undefined && old.term === current.term;
    });
  });

test('net --unreliable on then off: applied by every node and recorded for restarts',
  async () => {
    const on = await cluster.ok<{ unreliable: boolean; seed: number }>(
      'cluster', 'net', '--unreliable', 'on', '--seed', '42');
    assert.equal(on, { ok: true, unreliable: true, seed: 42 });
    const recorded = JSON.parse(readFileSync(cluster.cluster.paths.networkFile, 'utf8'));
    assert.equal(recorded, { unreliable: true, seed: 42, isolated: [] });
    const query = await cluster.ok<{ num: number }>('ctl', 'query', '--timeout', '20');
    assert.is(query.num, 0);
    await cluster.ok('cluster', 'net', '--unreliable', 'off');
    assert.is(JSON.parse(readFileSync(cluster.cluster.paths.networkFile, 'utf8')).unreliable,
      false);
  });

test('isolate waits for cluster.lock before it changes network.json', async () => {
  const paths = cluster.cluster.paths;
  const readIsolated = () => JSON.parse(readFileSync(paths.networkFile, 'utf8')).isolated;
  let isolating: Promise<unknown> = Promise.resolve();
  await withClusterLock(paths, 1000, async () => {
    isolating = cluster.ok('cluster', 'isolate', '--node', 'g100-0');
    await sleep(1500);
    assert.equal(readIsolated(), [], 'network.json changed while another command held the lock');
  });
  await isolating;
  assert.equal(readIsolated(), ['g100-0']);
  await cluster.ok('cluster', 'heal');
});

test('stop ends every process and leaves none behind; status then reports all dead',
  async () => {
    const pids = (await cluster.status()).map((node) => node.pid!);
    const stopped = await cluster.ok<{ stopped: string[] }>('cluster', 'stop');
    assert.is(stopped.stopped.length, 9);
    cluster.nodes.forEach((name, index) => {
      assert.not.ok(isNodeProcess(cluster.cluster.paths, name, pids[index]!), name);
    });
    const status = await cluster.status();
    assert.ok(status.every((node) => !node.alive && node.role === null));
  });

test.run();
