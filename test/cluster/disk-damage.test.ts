// Issue 26 item 5 on real processes: one flipped byte in the middle of the last WAL segment
// of one, then two, then three replicas of a group. A damaged replica refuses to start with
// one line naming the file, the offset and why it is not a torn write; `cluster restart`
// exits 1 with that line and `cluster status` shows the node down with it; nothing is cut.
// With one replica down the group serves every acknowledged write; with two or three it
// cannot commit, and says so (status), rather than answer from a log that lost writes.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { okValue, TestCluster } from './harness.js';

let cluster: TestCluster;
const values = new Map<string, string>();

test.before(async () => {
  cluster = await TestCluster.start({ groups: 1, servers: 3, controllers: 3 });
});

test.after(async () => {
  await cluster?.destroy();
});

/** Flips one byte in the middle of the node's last segment; returns the segment's path. */
function damageLastSegment(name: string): { path: string; size: number } {
  const directory = cluster.cluster.paths.dataDirectory(name);
  const last = readdirSync(directory).filter((file) => file.startsWith('wal-')).sort().at(-1)!;
  const path = join(directory, last);
  const bytes = readFileSync(path);
  bytes[Math.floor(bytes.length / 2)]! ^= 0x20;
  writeFileSync(path, bytes);
  return { path, size: bytes.length };
}

/** SIGKILL, damage, `cluster restart`: the restart must fail and report the damage. */
async function damageAndRestart(name: string): Promise<void> {
  await cluster.kill(name);
  const { path, size } = damageLastSegment(name);
  const run = await cluster.cli('cluster', 'restart', '--node', name);
  assert.is(run.code, 1, `restart of a damaged ${name}: ${run.stdout}`);
  assert.not.match(run.stdout, /restarted/);
  assert.match(run.stderr, `${name} exited: `);
  assert.match(run.stderr, `disk damage in ${path} at offset `);
  assert.match(run.stderr, /a valid record follows at offset \d+/);
  assert.is(statSync(path).size, size, 'the valid records after the damage are kept');
  const status = await cluster.ok<{ nodes: { name: string; alive: boolean; reason: string }[] }>(
    'cluster', 'status');
  const report = status.nodes.find((node) => node.name === name)!;
  assert.is(report.alive, false);
  assert.match(report.reason, `disk damage in ${path}`);
  assert.match(report.reason, /refusing to start/);
  const text = await cluster.cli('cluster', 'status');
  assert.match(text.stdout, `${name} is down: disk damage in ${path}`);
}

test('one damaged replica stays down with its reason; the group keeps every write', async () => {
  await cluster.ok('ctl', 'join', '100', '--wait');
  const session = await cluster.clerk();
  for (let index = 0; index < 40; index++) {
    const key = `key-${index}`;
    values.set(key, `value ${index}`);
    okValue(await session.clerk.put(key, values.get(key)!, session.deadline(10)), `put ${key}`);
  }
  await damageAndRestart('g100-0');
  for (const [key, value] of values) {
    assert.is(okValue(await session.clerk.get(key, session.deadline(20)), `get ${key}`), value);
  }
  okValue(await session.clerk.put('after', 'one down', session.deadline(10)), 'put after');
  await session.close();
});

test('two and three damaged replicas: the group is down and status says why', async () => {
  await damageAndRestart('g100-1');
  const session = await cluster.clerk();
  const put = await session.clerk.put('key-0', 'lost?', session.deadline(3));
  assert.is.not(put.status, 'ok', 'one replica of three cannot commit');
  await session.close();
  await damageAndRestart('g100-2');
  const reports = await cluster.status();
  const group = reports.filter((report) => report.name.startsWith('g100-'));
  assert.ok(group.every((report) => !report.alive && report.reason !== null));
  const get = await cluster.cli('kv', 'get', 'key-0', '--timeout', '2');
  assert.is(get.code, 1, 'no answer from a group whose replicas all refused their logs');
});

test.run();
