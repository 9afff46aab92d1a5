// The process plumbing behind `cluster` commands, without a running cluster: DIR's lock
// (a dead owner's lock is broken, a live owner's is waited for), pid files that outlive their
// process or name another one, and a start that fails on a busy port (exit 1 naming the node
// and the reason, no process left).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterFailure } from '../../impl/process/errors.js';
import { withClusterLock } from '../../impl/process/lock.js';
import { ClusterPaths } from '../../impl/process/paths.js';
import { runningPid, writePid } from '../../impl/process/pids.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirectory } from '../helpers/scratch.js';

const scratch = scratchDirectory('shardkv-lifecycle-');

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

test('a lock left by a dead process is broken; a live owner makes others wait', async () => {
  const paths = new ClusterPaths(join(scratch, 'lock'));
  mkdirSync(paths.root);
  writeFileSync(paths.lockFile, `${deadPid()}\n`);
  assert.is(await withClusterLock(paths, 1000, async () => 'taken'), 'taken');
  const order: string[] = [];
  const first = withClusterLock(paths, 5000, async () => {
    order.push('first in');
    await new Promise((resolve) => setTimeout(resolve, 100));
    order.push('first out');
  });
  const second = withClusterLock(paths, 5000, async () => order.push('second'));
  await Promise.all([first, second]);
  assert.equal(order, ['first in', 'first out', 'second']);
  writeFileSync(paths.lockFile, `${process.pid}\n`);
  try {
    await withClusterLock(paths, 100, async () => assert.unreachable('taken twice'));
    assert.unreachable('no failure');
  } catch (error) {
    assert.instance(error, ClusterFailure);
    assert.match((error as Error).message, `locked by process ${process.pid}`);
  }
});

test('a pid file of a dead process, or of a process that is not the node, is not running',
  () => {
    const paths = new ClusterPaths(join(scratch, 'pids'));
    mkdirSync(paths.nodeDirectory('g100-0'), { recursive: true });
    writePid(paths, 'g100-0', deadPid());
    assert.is(runningPid(paths, 'g100-0'), null);
    writePid(paths, 'g100-0', process.pid);
    assert.is(runningPid(paths, 'g100-0'), null);
  });

test('start on a busy port exits 1 naming the node and the reason; no process is left',
  async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    const port = (busy.address() as AddressInfo).port;
    const directory = join(scratch, 'busy');
    try {
      // Node i listens on base + i: the fourth node (g100-0, after three controllers) collides
      // (or another, should a port below be taken by someone else).
      const run = await runCli('cluster', 'start', '--dir', directory, '--groups', '1',
        '--base-port', String(port - 3), '--json');
      assert.is(run.code, 1);
      assert.match(run.json<{ error: string }>().error,
        /(ctl|g100)-\d exited during start: .*fatal: listen EADDRINUSE/);
      const status = await runCli('cluster', 'status', '--dir', directory, '--json');
      const nodes = status.json<{ nodes: { alive: boolean }[] }>().nodes;
      assert.is(nodes.length, 6);
      assert.ok(nodes.every((node) => !node.alive));
    } finally {
      busy.close();
    }
  });

test.run();
