// Foreground nodes (`shardkv node`), as three machines would run them: `cluster init` writes
// one cluster.json and the secrets, each "machine" gets a copy in a directory of its own and
// runs its two nodes (ctl-I, g100-I) as foreground processes; together they form a working
// cluster that ctl and kv reach from any copy. SIGTERM ends each node with exit 0.
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePorts } from '../../impl/process/ports.js';
import { runCli, spawnChild, type CliRun } from '../helpers/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'shardkv-foreground-'));
const machines = [0, 1, 2].map((index) => join(scratch, `machine-${index}`));
const children = new Map<string, ChildProcess>();

test.after(() => {
  for (const child of children.values()) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

test('cluster init writes the files for the hosts named and starts nothing', async () => {
  const ports = await freePorts('127.0.0.1', 6);
  const names = ['ctl-0', 'ctl-1', 'ctl-2', 'g100-0', 'g100-1', 'g100-2'];
  const hosts = names.map((name, index) => `${name} 127.0.0.1:${ports[index]}`);
  writeFileSync(join(scratch, 'hosts'), ['# name host:port', ...hosts, ''].join('\n'));
  const base = join(scratch, 'base');
  const init = await runCli('cluster', 'init', '--dir', base, '--hosts', join(scratch, 'hosts'),
    '--shards', '4', '--json');
  assert.is(init.code, 0, init.stderr);
  assert.equal(init.json<{ nodes: string[] }>().nodes, names);
  assert.equal(readdirSync(base).sort(), ['client.secret', 'cluster.json', 'cluster.secret']);
  const again = await runCli('cluster', 'init', '--dir', base, '--hosts', join(scratch, 'hosts'));
  assert.is(again.code, 2);
  writeFileSync(join(scratch, 'bad-hosts'), 'ctl-0 127.0.0.1:1\ng100-1 127.0.0.1:2\n');
  const bad = await runCli('cluster', 'init', '--dir', join(scratch, 'bad'),
    '--hosts', join(scratch, 'bad-hosts'));
  assert.is(bad.code, 2);
  assert.match(bad.stderr, 'no line names g100-0');
  for (const machine of machines) {
    mkdirSync(machine);
    for (const file of ['cluster.json', 'cluster.secret', 'client.secret']) {
      copyFileSync(join(base, file), join(machine, file));
    }
  }
});

/** Retries a CLI call until `done` accepts its answer (the nodes are electing leaders). */
async function eventually(done: (run: CliRun) => boolean, ...argv: string[]) {
  for (let attempt = 0; ; attempt++) {
    const run = await runCli(...argv, '--json');
    if (done(run) || attempt === 30) return run;
    await sleep(500);
  }
}

/**
 * `ctl join GID --wait`, retried. An attempt that timed out on a loaded machine may have
 * joined the group all the same: its retry is refused as "already a member", and then the
 * configuration's publication is waited for with `ctl query`.
 */
async function joinGroup(directory: string, gid: string): Promise<CliRun> {
  const run = await eventually((answer) => answer.code === 0 ||
    answer.stderr.includes(`gid ${gid} is already a member`), 'ctl', 'join', '--dir', directory,
  gid, '--wait');
  if (run.code === 0) return run;
  return eventually((answer) => answer.code === 0 &&
    answer.json<{ published: boolean }>().published, 'ctl', 'query', '--dir', directory);
}

test('six foreground nodes in three directories form a working cluster', async () => {
  machines.forEach((machine, index) => {
    for (const name of [`ctl-${index}`, `g100-${index}`]) {
      const child = spawnChild('node', '--dir', machine, '--node', name);
      children.set(name, child);
    }
  });
  const joined = await joinGroup(machines[0]!, '100');
  assert.is(joined.code, 0, joined.stderr);
  assert.is((await runCli('kv', 'put', '--dir', machines[1]!, 'k', 'v1')).code, 0);
  assert.is((await runCli('kv', 'append', '--dir', machines[2]!, 'k', '+v2')).code, 0);
  const read = await runCli('kv', 'get', '--dir', machines[0]!, 'k', '--json');
  assert.equal(read.json(), { ok: true, value: 'v1+v2' });
  // Each machine keeps only its own nodes' files.
  machines.forEach((machine, index) => {
    assert.equal(readdirSync(join(machine, 'nodes')).sort(), [`ctl-${index}`, `g100-${index}`]);
  });
  const status = await runCli('cluster', 'status', '--dir', machines[1]!, '--json');
  const alive = status.json<{ nodes: { name: string; alive: boolean }[] }>().nodes
    .filter((node) => node.alive).map((node) => node.name);
  assert.equal(alive, ['ctl-1', 'g100-1'], 'status on a machine sees the nodes it runs');
});

test('a second copy of a running node exits 1; an unknown node exits 2', async () => {
  const twice = await runCli('node', '--dir', machines[0]!, '--node', 'ctl-0');
  assert.is(twice.code, 1);
  assert.match(twice.stderr, 'ctl-0 already runs here');
  const unknown = await runCli('node', '--dir', machines[0]!, '--node', 'g999-0');
  assert.is(unknown.code, 2);
});

test('SIGTERM ends every foreground node with exit 0', async () => {
  const exits = [...children.entries()].map(async ([name, child]) => {
    const [code] = await once(child, 'exit') as [number | null];
    return [name, code] as const;
  });
  for (const child of children.values()) child.kill('SIGTERM');
  for (const [name, code] of await Promise.all(exits)) assert.is(code, 0, name);
  children.clear();
});

test.run();
