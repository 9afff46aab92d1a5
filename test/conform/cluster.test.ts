// Issue 14: a short traced run of a real cluster (processes, TCP, fsync) conforms: joins, a
// leave, `kv` operations through the CLI (which append history.jsonl), a node killed with
// SIGKILL and restarted from its files. Then one edited digest in a node's file is caught.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { TestCluster } from '../cluster/harness.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await TestCluster.start({ groups: 2, servers: 3, controllers: 3, trace: true });
});

test.after(async () => {
  await cluster?.destroy();
});

test('a traced cluster run with a kill and a restart conforms', async () => {
  await cluster.ok('ctl', 'join', '100', '101', '--wait');
  for (const key of ['a', 'b', 'c', 'd']) await cluster.ok('kv', 'put', key, `${key}1`);
  await cluster.kill('g100-0');
  for (const key of ['a', 'b', 'c', 'd']) await cluster.ok('kv', 'append', key, '+2');
  await cluster.restart('g100-0');
  await cluster.ok('ctl', 'leave', '101', '--wait');
  for (const key of ['a', 'b', 'c', 'd']) {
    assert.equal(await cluster.ok('kv', 'get', key), { ok: true, value: `${key}1+2` });
  }
  const stopped = await cluster.cli('cluster', 'stop');
  assert.is(stopped.code, 0, stopped.stderr);
  const run = await runCli('conform', cluster.directory, '--json');
  assert.is(run.code, 0, run.stderr);
  const summary = run.json<{ result: string; nodes: number; operations: number }>();
  assert.is(summary.result, 'conforming');
  assert.is(summary.nodes, 9);
  assert.is(summary.operations, 12);
  // g100-0 ran twice: its file holds a second incarnation that begins with a restart.
  const path = join(cluster.directory, 'traces', 'g100-0.jsonl');
  const records = readFileSync(path, 'utf8').trim().split('\n').map((line) =>
    JSON.parse(line) as { seq: number; inc: number; actor: string; input: { type: string };
      digest?: string });
  const restart = records.find((record) => record.inc === 2)!;
  assert.is(restart.input.type, 'restart');
  assert.is(restart.seq, records.filter((record) => record.inc === 1).length + 1);
  const edited = records.find((record) => record.inc === 2 && record.actor === 'machine')!;
  writeFileSync(path, records.map((record) => JSON.stringify(record === edited
    ? { ...record, digest: '0123456789abcdef' } : record)).join('\n') + '\n');
  const tamperedRun = await runCli('conform', cluster.directory, '--json');
  assert.is(tamperedRun.code, 1);
  const divergence = tamperedRun.json<{ divergence: Record<string, unknown> }>().divergence;
  assert.is(divergence['node'], 'g100-0');
  assert.is(divergence['step'], edited.seq);
  assert.is(divergence['what'], 'the state digest differs');
});

test.run();
