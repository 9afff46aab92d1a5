// Large values on a real cluster (issue 27, docs/large-values.md): a key grown by 1 MiB
// appends up to --max-value-bytes is readable there and refused past it (kv exit 1, nothing
// written); 1 MiB puts with --max-raft-state 65536 are all answered ok, without an election,
// and read back, while every node's log stays within its bound at every status poll (polled
// while the writes run, too). Election timeouts are wide (a loaded machine must not fail "no
// term change" by starving a timer); the assertion is not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClerkSession } from '../../impl/process/clerk-session.js';
import type { NodeReport } from '../../impl/process/cluster-status.js';
import { eventually, keyOfShard, okValue, TestCluster } from './harness.js';

const mebibyte = 2 ** 20;
const maxValueBytes = 2 * mebibyte;
const maxRaftStateBytes = 65_536;
/** CONTRACT's bound once an entry applied: 8 x BYTES. */
const logBound = 8 * maxRaftStateBytes;
/** The WAL record of the largest entry written here: a 1 MiB value, its key and framing. */
const largestEntryBytes = mebibyte + 1_024;
/**
 * While a write is under way the leader's log holds entries larger than the bound that no
 * durable snapshot covers yet (docs/large-values.md): with one writer, at most two, the one
 * applied whose snapshot is being written and the next one. A follower that falls behind holds
 * every entry it is behind on until it applies them: no bound but the one after each write.
 */
const leaderLogBound = logBound + 2 * largestEntryBytes;

let cluster: TestCluster;
let client: ClerkSession;
let groupTerms: Map<string, number> | null = null;
/** The largest logBytes a status poll saw, per node (SHARDKV_SHOW_LOG_BYTES=1 prints it). */
const largestLog = new Map<string, number>();

/**
 * The group servers' status: the leader's log within its bound and, once the terms are known,
 * every term the one the group began with (a node busy writing a snapshot may miss the poll's
 * 2 s: its report is null, and the next poll asks again).
 */
async function groupStatus(): Promise<NodeReport[]> {
  const status = (await cluster.status()).filter((node) => node.name.startsWith('g'));
  for (const node of status) {
    assert.ok(node.alive, `${node.name} is alive`);
    if (node.logBytes === null) continue;
    largestLog.set(node.name, Math.max(largestLog.get(node.name) ?? 0, node.logBytes));
    if (node.role === 'leader') {
      assert.ok(node.logBytes <= leaderLogBound, `${node.name}: ${node.logBytes} log bytes`);
    }
    const term = groupTerms?.get(node.name);
    if (term !== undefined) assert.is(node.term, term, `${node.name}: no term change`);
  }
  return status;
}

/** Runs `write` while polling the group's status (groupStatus's assertions) until it ends. */
async function polled<T>(write: () => Promise<T>): Promise<T> {
  let writing = true;
  const poller = (async () => {
    while (writing) {
      await groupStatus();
      await sleep(100);
    }
  })();
  // Its failure is thrown below, once the write ended; until then it must not count as unhandled.
  poller.catch(() => undefined);
  try {
    return await write();
  } finally {
    writing = false;
    await poller;
  }
}

/** Every group server compacted the write: its log is back within 8 x BYTES. */
async function compacted(what: string): Promise<void> {
  await eventually(`${what}: logs within ${logBound} bytes`, async () =>
    (await groupStatus()).every((node) => node.logBytes !== null && node.logBytes <= logBound),
  30_000);
}

test.before(async () => {
  cluster = await TestCluster.start({
    groups: 1, servers: 3, controllers: 3, shards: 10, maxValueBytes, maxRaftStateBytes,
    electionTimeoutMs: [2_000, 4_000],
  });
  client = await cluster.clerk();
  const joined = await cluster.cli('ctl', 'join', '100', '--wait', '--timeout', '60');
  assert.is(joined.code, 0, joined.stderr);
  await cluster.leaderOf('g100');
  await eventually('every group server reports the leader\'s term', async () => {
    const terms = (await groupStatus()).map((node) => node.term);
    return terms.every((term) => term !== null && term === terms[0]);
  });
  groupTerms = new Map((await groupStatus()).map((node) => [node.name, node.term!]));
});

test.after(async () => {
  if (process.env['SHARDKV_SHOW_LOG_BYTES']) console.log(JSON.stringify([...largestLog]));
  await cluster?.destroy();
});

test('a key grows by 1 MiB appends to the limit, readable there, refused past', async () => {
  const key = keyOfShard(1, '-grown');
  const chunks = ['a', 'b'].map((letter) => letter.repeat(mebibyte));
  for (const [index, chunk] of chunks.entries()) {
    okValue(await polled(() => client.clerk.append(key, chunk, client.deadline(60))),
      `append ${index}`);
    await compacted(`append ${index}`);
  }
  const full = chunks.join('');
  assert.is(full.length, maxValueBytes);
  assert.ok(okValue(await client.clerk.get(key, client.deadline(60)), 'get') === full,
    'the value at the limit reads back whole');
  const past = await cluster.cli('kv', 'append', key, 'e');
  assert.is(past.code, 1, past.stderr);
  assert.match(past.stderr, /would exceed the limit of 2097152 bytes; nothing was written/);
  assert.ok(okValue(await client.clerk.get(key, client.deadline(60)), 'get') === full,
    'the refused append wrote nothing');
  // Emptied, so that the snapshots of the next test hold only its puts.
  okValue(await client.clerk.put(key, '', client.deadline(60)), 'put empty');
  await compacted('put empty');
});

test('1 MiB puts with --max-raft-state 65536: answered ok, logs bounded, read back', async () => {
  const values = new Map<string, string>();
  for (let index = 0; index < 4; index++) {
    // One shard: its dedup record holds the last put's value only (issue 21: results).
    const key = keyOfShard(2, `-big-${index}`);
    const value = String.fromCharCode(65 + index).repeat(mebibyte);
    okValue(await polled(() => client.clerk.put(key, value, client.deadline(60))), `put ${key}`);
    values.set(key, value);
    await compacted(`put ${index}`);
  }
  for (const [key, value] of values) {
    assert.ok(okValue(await client.clerk.get(key, client.deadline(60)), `get ${key}`) === value,
      `${key} reads back`);
  }
  const status = await groupStatus();
  assert.ok(status.every((node) => node.snapshotBytes! > 4 * mebibyte), 'snapshots hold values');
  for (const node of status) {
    assert.is(node.term, groupTerms!.get(node.name), `${node.name}: no term change`);
  }
});

test.run();
