// Concurrent clients with real processes (MIT 6.5840 shardkv's concurrent and unreliable
// tests, checked exactly): 10 clients append while groups join and leave and servers are
// killed and restarted; every append is present exactly once and in each client's order. The
// same under `cluster net --unreliable on`; then a random workload under the unreliable
// network whose history `shardkv lincheck` must find linearizable (undecided fails).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClerkSession } from '../../impl/process/clerk-session.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';
import { keyOfShard, okValue, TestCluster } from './harness.js';

const clientCount = 10;
let cluster: TestCluster;
let clients: ClerkSession[];

test.before(async () => {
  cluster = await TestCluster.start({ groups: 3, servers: 3, controllers: 3 });
  clients = await Promise.all(Array.from({ length: clientCount }, () => cluster.clerk()));
  await cluster.ok('ctl', 'join', '100', '--wait');
});

test.after(async () => {
  await cluster?.destroy();
});

/**
 * Configuration changes, kills and restarts, one after another, all of them whenever the
 * clients finish: each test leaves the next one a known membership and every node running.
 */
async function churn(steps: readonly (() => Promise<unknown>)[]) {
  for (const step of steps) await step();
}

const change = (...argv: string[]) => () =>
  cluster.ok('ctl', argv[0]!, ...argv.slice(1), '--wait', '--timeout', '90');

/** Each client appends `appends` tokens, spread over the keys of every shard. */
async function appendConcurrently(
  tag: string, appends: number, steps: readonly (() => Promise<unknown>)[],
) {
  const workload = Promise.all(clients.map(async (session, client) => {
    for (let index = 0; index < appends; index++) {
      const key = keyOfShard((client + index) % 10, `-${tag}`);
      const token = `[${client}.${index}]`;
      okValue(await session.clerk.append(key, token, session.deadline(60)), `${key} ${token}`);
    }
  }));
  await Promise.all([workload, churn(steps)]);
  const reader = clients[0]!;
  const seen = new Map<number, number[]>();
  for (let shard = 0; shard < 10; shard++) {
    const key = keyOfShard(shard, `-${tag}`);
    const value = okValue(await reader.clerk.get(key, reader.deadline(60)), `get ${key}`);
    for (const [, client, index] of value.matchAll(/\[(\d+)\.(\d+)\]/g)) {
      const list = seen.get(Number(client)) ?? [];
      list.push(Number(index));
      seen.set(Number(client), list);
      assert.is(keyOfShard((Number(client) + Number(index)) % 10, `-${tag}`), key);
    }
  }
  for (let client = 0; client < clientCount; client++) {
    const indexes = seen.get(client) ?? [];
    // In each key, a client's tokens keep its order; over all keys, each token exactly once.
    assert.equal([...indexes].sort((a, b) => a - b), Array.from({ length: appends }, (_, i) => i),
      `client ${client}`);
  }
}

test('10 clients append during joins, leaves and kills: each append once, in order', async () => {
  await appendConcurrently('reliable', 12, [
    change('join', '101'),
    () => cluster.kill('g100-1'),
    change('join', '102'),
    () => cluster.restart('g100-1'),
    change('leave', '100'),
    () => cluster.kill('g101-2'),
    change('join', '100'),
    () => cluster.restart('g101-2'),
  ]);
});

test('the same under the unreliable network', async () => {
  await cluster.ok('cluster', 'net', '--unreliable', 'on', '--seed', '7');
  try {
    await appendConcurrently('unreliable', 6, [
      change('leave', '101'),
      () => cluster.kill('g102-0'),
      change('join', '101'),
      () => cluster.restart('g102-0'),
    ]);
  } finally {
    await cluster.ok('cluster', 'net', '--unreliable', 'off');
  }
});

interface HistoryLine {
  client: number;
  op: 'get' | 'put' | 'append';
  key: string;
  value?: string;
  output?: string;
  call: number;
  return?: number;
  outcome?: 'unknown';
}

test('a random workload under the unreliable network is linearizable (shardkv lincheck)',
  async () => {
    await cluster.ok('cluster', 'net', '--unreliable', 'on', '--seed', '11');
    const lines: HistoryLine[] = [];
    const keys = [keyOfShard(1, '-lin'), keyOfShard(2, '-lin'), keyOfShard(5, '-lin')];
    try {
      const workload = Promise.all(clients.slice(0, 5).map(async (session, client) => {
        for (let index = 0; index < 16; index++) {
          const op = (['get', 'put', 'append'] as const)[(client * 7 + index * 5) % 3]!;
          const key = keys[(client + index * 3) % keys.length]!;
          const value = `${client}.${index};`;
          const line: HistoryLine = { client, op, key, call: performance.now() };
          if (op !== 'get') line.value = value;
          const outcome = op === 'get'
            ? await session.clerk.get(key, session.deadline(20))
            : await session.clerk[op](key, value, session.deadline(20));
          if (outcome.status === 'refused') assert.unreachable(`${op} refused: ${outcome.error}`);
          else if (outcome.status === 'unknown') line.outcome = 'unknown';
          else {
            line.return = performance.now();
            if (op === 'get') line.output = outcome.value as string;
          }
          lines.push(line);
          // A client whose outcome is unknown stops: its next call could overlap it.
          if (outcome.status === 'unknown') return;
        }
      }));
      await Promise.all([workload, churn([change('move', '1', '102'), change('move', '2', '101'),
        change('move', '5', '100')])]);
    } finally {
      await cluster.ok('cluster', 'net', '--unreliable', 'off');
    }
    assert.ok(lines.length >= 16, `only ${lines.length} operations`);
    const file = join(scratchDirectory('shardkv-lin-'), 'history.jsonl');
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const verdict = await runCli('lincheck', file, '--json', '--time-limit', '60');
    assert.is(verdict.code, 0, verdict.stdout + verdict.stderr);
    assert.is(verdict.json<{ result: string }>().result, 'linearizable');
  });

test.run();
