// `cluster start` given what it cannot use (issue 25's defects): a DIR that is a file, one under
// /proc, a --base-port whose last node would be above 65535, a busy port. Each ends with one
// line and CONTRACT's exit code, with no node process left running; a failed or stopped
// cluster starts again with `cluster start --resume`, and `start` on it says so. On that
// cluster: every node down and a wrong secret each keep their reason, `ctl query` of a NUM not
// recorded is refused, and standard input that is not UTF-8 is refused, not stored altered.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePorts } from '../../impl/process/ports.js';
import { ClusterPaths } from '../../impl/process/paths.js';
import { readPid, runningPid } from '../../impl/process/pids.js';
import { runCli } from '../helpers/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'shardkv-start-failures-'));
const small = ['--groups', '1', '--servers', '1', '--controllers', '1'];
const child = fileURLToPath(new URL('../helpers/shardkv-child.ts', import.meta.url));

test.after(async () => {
  await runCli('cluster', 'stop', '--dir', join(scratch, 'busy'));
  rmSync(scratch, { recursive: true, force: true });
});

const oneLine = (text: string) => text.trim().split('\n').length === 1;

test('a DIR that names a file: exit 2, one line', async () => {
  const file = join(scratch, 'a-file');
  writeFileSync(file, 'not a directory\n');
  const run = await runCli('cluster', 'start', '--dir', file, ...small);
  assert.is(run.code, 2);
  assert.ok(oneLine(run.stderr), run.stderr);
  assert.match(run.stderr, 'exists and is not a directory');
});

test('a DIR that cannot be created (/proc/x): exit 2 at once', () => {
  // A child with a timeout: the old code spun here forever.
  const run = spawnSync(process.execPath, ['--import', 'tsx', child, 'cluster', 'start',
    '--dir', '/proc/shardkv-x', ...small], { encoding: 'utf8', timeout: 30_000 });
  assert.is(run.status, 2, run.stderr);
  assert.ok(oneLine(run.stderr), run.stderr);
  assert.match(run.stderr, 'cannot create /proc/shardkv-x');
});

test('--base-port too high for every node: exit 2, nothing written or started', async () => {
  const directory = join(scratch, 'high');
  const run = await runCli('cluster', 'start', '--dir', directory, '--base-port', '65530');
  assert.is(run.code, 2);
  assert.ok(oneLine(run.stderr), run.stderr);
  assert.match(run.stderr, 'puts the last of 12 nodes on port 65541, above 65535');
  assert.not.ok(existsSync(directory));
});

test('--unreliable maybe names the bad value, not a missing flag', async () => {
  const directory = join(scratch, 'high');
  const run = await runCli('cluster', 'net', '--dir', directory, '--unreliable', 'maybe');
  assert.is(run.code, 2);
  assert.match(run.stderr, "--unreliable takes on or off, not 'maybe'");
});

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * A free port whose next port this test holds: the cluster's second node gets it. The next
 * port may be taken by a cluster of another test file running beside this one, so try again.
 */
async function portBeforeABusyOne(): Promise<{ port: number; blocker: Server }> {
  for (let attempt = 1; ; attempt++) {
    const [port] = await freePorts('127.0.0.1', 1);
    try {
      return { port: port!, blocker: await listen(port! + 1) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 20) throw error;
    }
  }
}

const nodePids = (directory: string) => readdirSync(join(directory, 'nodes'))
  .map((name) => runningPid(new ClusterPaths(directory), name)).filter((pid) => pid !== null);

test('a busy port: exit 1 with the hint; --resume starts it once the port is free, and ' +
  'again after stop', async () => {
  const directory = join(scratch, 'busy');
  const { port, blocker } = await portBeforeABusyOne();
  const failed = await runCli('cluster', 'start', '--dir', directory, ...small,
    '--base-port', String(port), '--timeout', '20');
  blocker.close();
  assert.is(failed.code, 1);
  assert.ok(oneLine(failed.stderr), failed.stderr);
  assert.match(failed.stderr, 'g100-0 exited during start');
  assert.match(failed.stderr, `shardkv cluster start --dir ${directory} --resume`);
  assert.equal(nodePids(directory), [], 'no node process left running');
  const again = await runCli('cluster', 'start', '--dir', directory, ...small);
  assert.is(again.code, 2);
  assert.match(again.stderr, '--resume');
  const resumed = await runCli('cluster', 'start', '--dir', directory, '--resume', '--json');
  assert.is(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.json<{ started: string[] }>().started, ['ctl-0', 'g100-0']);
  assert.is((await runCli('ctl', 'join', '--dir', directory, '100', '--wait')).code, 0);
  assert.is((await runCli('kv', 'put', '--dir', directory, 'k', 'kept')).code, 0);
  assert.is((await runCli('cluster', 'stop', '--dir', directory)).code, 0);
  assert.equal(nodePids(directory), []);
  // Every node down: the reason is kept, with what to do.
  const down = await runCli('kv', 'get', '--dir', directory, 'k', '--timeout', '1');
  assert.is(down.code, 1);
  assert.ok(oneLine(down.stderr), down.stderr);
  assert.match(down.stderr, /cannot reach (ctl-0|g100-0) \(ECONNREFUSED\)/);
  assert.match(down.stderr, '--resume');
  const shape = await runCli('cluster', 'start', '--dir', directory, '--resume', '--shards', '3');
  assert.is(shape.code, 2);
  assert.is((await runCli('cluster', 'start', '--dir', directory, '--resume')).code, 0);
  const read = await runCli('kv', 'get', '--dir', directory, 'k', '--json');
  assert.equal(read.json(), { ok: true, value: 'kept' });
  assert.ok(readPid(new ClusterPaths(directory), 'ctl-0') !== null);
});

test('a wrong secret is named as such, not as a silence', async () => {
  const directory = join(scratch, 'busy');
  const copy = join(scratch, 'wrong-secret');
  mkdirSync(copy);
  copyFileSync(join(directory, 'cluster.json'), join(copy, 'cluster.json'));
  for (const secret of ['cluster.secret', 'client.secret']) {
    writeFileSync(join(copy, secret), 'ab'.repeat(32) + '\n', { mode: 0o600 });
  }
  const kv = await runCli('kv', 'get', '--dir', copy, 'k', '--timeout', '1');
  assert.is(kv.code, 1);
  assert.match(kv.stderr, /refused the handshake: DIR\/client\.secret is not this cluster's/);
  const ctl = await runCli('ctl', 'query', '--dir', copy, '--timeout', '1');
  assert.is(ctl.code, 1);
  assert.match(ctl.stderr, /refused the handshake: DIR\/cluster\.secret is not this cluster's/);
});

test('ctl query of a configuration not recorded: exit 1, nothing printed as if it were', async () => {
  const directory = join(scratch, 'busy');
  const run = await runCli('ctl', 'query', '--dir', directory, '99999', '--json');
  assert.is(run.code, 1);
  assert.match(run.json<{ error: string }>().error,
    'no configuration 99999 is recorded (the latest is 1)');
  const first = await runCli('ctl', 'query', '--dir', directory, '1', '--json');
  assert.is(first.json<{ num: number }>().num, 1);
});

test('bytes from standard input that are not UTF-8 are refused (exit 2), nothing written',
  () => {
    const directory = join(scratch, 'busy');
    const kv = (input: Buffer | string, ...argv: string[]) => spawnSync(process.execPath,
      ['--import', 'tsx', child, 'kv', ...argv, '--dir', directory],
      { input, encoding: 'utf8', timeout: 60_000 });
    const binary = kv(Buffer.from([0xff, 0xfe]), 'put', 'k', '-');
    assert.is(binary.status, 2, binary.stderr);
    assert.ok(oneLine(binary.stderr), binary.stderr);
    assert.match(binary.stderr, 'standard input is not UTF-8 text (byte 0xff at offset 0)');
    assert.is(kv('', 'get', 'k').stdout, 'kept\n');
    assert.is(kv('h\u00e9', 'put', 'k', '-').status, 0);
    assert.is(kv('', 'get', 'k').stdout, 'h\u00e9\n');
  });

test.run();
