// Durability with real processes and real fsync (CONTRACT; issue 13 item 5): every put the
// cluster acknowledged survives SIGKILL of every node at the same moment and a restart of all
// of them from their files; `kv get` reads them after the restart, a missing key as "".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, okValue, TestCluster } from './harness.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await TestCluster.start({ groups: 1, servers: 3, controllers: 3, trace: true });
});

test.after(async () => {
  await cluster?.destroy();
});

test('acknowledged puts survive SIGKILL of every node at once and a restart', async () => {
  await cluster.ok('ctl', 'join', '100', '--wait');
  const session = await cluster.clerk();
  const values = new Map<string, string>();
  for (let index = 0; index < 30; index++) {
    const key = `key-${index}`;
    const value = `value ${index} ${'x'.repeat(index * 7)}`;
    okValue(await session.clerk.put(key, value, session.deadline(10)), `put ${key}`);
    values.set(key, value);
  }
  await session.close();
  await eventually('every node to trace its steps (cluster start --trace)', () =>
    cluster.nodes.every((name) => {
      const path = join(cluster.cluster.paths.tracesDirectory, `${name}.jsonl`);
      if (!existsSync(path)) return false;
      const first = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!);
      return first.node === name && first.seq === 1 && first.input.type === 'restart';
    }));
  await cluster.killAtOnce(cluster.nodes);
  assert.ok((await cluster.status()).every((node) => !node.alive));
  for (const name of cluster.nodes) await cluster.restart(name);
  const reader = await cluster.clerk();
  for (const [key, value] of values) {
    assert.is(okValue(await reader.clerk.get(key, reader.deadline(20)), `get ${key}`), value);
  }
  const cli = await cluster.ok<{ ok: boolean; value: string }>('kv', 'get', 'key-29');
  assert.equal(cli, { ok: true, value: values.get('key-29') });
  const missing = await cluster.ok<{ ok: boolean; value: string }>('kv', 'get', 'never-put');
  assert.equal(missing, { ok: true, value: '' });
});

test.run();
