// The deployment files shipped in deploy/ run what docs/deploy.md says: the systemd unit's
// ExecStart and the StatefulSet's container args are `shardkv node` command lines that start a
// node of a `cluster init` DIR and end with exit 0 on SIGTERM; the Kubernetes hosts file is
// one `cluster init` accepts, naming exactly the pods of the StatefulSets. Both start node with
// the GC flags `shardkv start` gives its nodes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePorts } from '../../impl/process/ports.js';
import { garbageCollectorFlags } from '../../impl/process/spawn.js';
import { runCli } from '../helpers/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'shardkv-deploy-'));
const child = fileURLToPath(new URL('../helpers/shardkv-child.ts', import.meta.url));
const unit = readFileSync('deploy/systemd/shardkv@.service', 'utf8');
const manifest = readFileSync('deploy/kubernetes/shardkv.yaml', 'utf8');
const dockerfile = readFileSync('deploy/kubernetes/Dockerfile', 'utf8');

test.after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs `shardkv ARGS` (node started with the GC flags) until it logs that it started, then
 * SIGTERMs it; its exit code.
 */
async function runUntilStarted(args: readonly string[]): Promise<number | null> {
  const node = spawn(process.execPath,
    [...garbageCollectorFlags, '--import', 'tsx', child, ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const exited = once(node, 'exit');
  await new Promise<void>((resolve, reject) => {
    node.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes(': started from ')) resolve();
    });
    node.once('exit', () => reject(new Error(`the node exited early: ${log}`)));
  });
  node.kill('SIGTERM');
  return ((await exited) as [number | null])[0];
}

async function initDir(name: string): Promise<{ directory: string; port: number }> {
  const [port] = await freePorts('127.0.0.1', 2);
  const hosts = join(scratch, `${name}.hosts`);
  writeFileSync(hosts, `ctl-0 127.0.0.1:${port}\ng100-0 127.0.0.1:${port! + 1}\n`);
  const directory = join(scratch, name);
  assert.is((await runCli('cluster', 'init', '--dir', directory, '--hosts', hosts)).code, 0);
  return { directory, port: port! };
}

test('the systemd unit runs `shardkv node` for its instance; SIGTERM exits 0', async () => {
  const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1];
  assert.ok(execStart !== undefined, 'ExecStart');
  const words = execStart.split(/\s+/);
  const program = ['/usr/bin/node', ...garbageCollectorFlags, '/opt/shardkv/bin/shardkv.js'];
  assert.equal(words.slice(0, program.length), program);
  const { directory } = await initDir('systemd');
  const args = words.slice(program.length).map((word) => word.replace('%i', 'ctl-0')
    .replace('/var/lib/shardkv', directory));
  assert.equal(args.slice(0, 1), ['node']);
  assert.is(await runUntilStarted(args), 0);
  assert.match(unit, 'RestartPreventExitStatus=2');
});

test('the image\'s entry point starts node with the GC flags', () => {
  const entryPoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  assert.ok(entryPoint !== undefined, 'ENTRYPOINT');
  assert.equal(JSON.parse(entryPoint),
    ['node', ...garbageCollectorFlags, '/opt/shardkv/bin/shardkv.js']);
});

test('the StatefulSets run `shardkv node` for their pod; the hosts file names their pods',
  async () => {
    const argsLines = [...manifest.matchAll(/^\s+args: (\[.*\])$/gm)].map((m) => m[1]!);
    assert.is(argsLines.length, 2);
    const { directory, port } = await initDir('kubernetes');
    const args = (JSON.parse(argsLines[0]!) as string[]).map((word) => word
      .replace('$(POD_NAME)', 'ctl-0').replace('/var/lib/shardkv', directory)
      .replace('0.0.0.0:7000', `127.0.0.1:${port}`));
    assert.is(await runUntilStarted(args), 0);
    const sets = [...manifest.matchAll(/kind: StatefulSet\nmetadata:\n {2}name: (\S+)\nspec:\n(?:.*\n)*? {2}replicas: (\d+)/g)]
      .flatMap((m) => Array.from({ length: Number(m[2]) }, (_, index) => `${m[1]}-${index}`));
    const init = await runCli('cluster', 'init', '--dir', join(scratch, 'k8s-dir'),
      '--hosts', 'deploy/kubernetes/hosts', '--json');
    assert.is(init.code, 0, init.stderr);
    assert.equal(init.json<{ nodes: string[] }>().nodes, sets);
  });

test.run();
