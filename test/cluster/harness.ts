/**
 * A real cluster for one acceptance test file: node processes started through the same
 * functions as `shardkv cluster start`, in a temporary DIR. Whatever happens to the test, no
 * process is left behind: `destroy()` (call it in a finally) and, as a last resort, the exit
 * hook SIGKILL every pid in DIR's pid files and remove DIR (nodes also exit by themselves
 * within seconds once DIR's pid file no longer names them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { allNodes } from '../../impl/process/cluster-file.js';
import {
  clusterStatus, killNode, openCluster, restartNode, type OpenCluster,
} from '../../impl/process/cluster-nodes.js';
import { startCluster } from '../../impl/process/cluster-start.js';
import { openClerk, type ClerkRole, type ClerkSession } from '../../impl/process/clerk-session.js';
import type { NodeReport } from '../../impl/process/cluster-status.js';
import { runningPid } from '../../impl/process/pids.js';
import { waitForExit } from '../../impl/process/spawn.js';
import type { Outcome } from '../../impl/node/api.js';
import { runCli, type CliRun } from '../helpers/cli.js';

export interface TestClusterOptions {
  readonly groups?: number;
  readonly servers?: number;
  readonly controllers?: number;
  readonly shards?: number;
  readonly maxRaftStateBytes?: number;
  readonly maxValueBytes?: number;
  readonly trace?: boolean;
  /** The nodes' election timeout range (default: the shell's). */
  readonly electionTimeoutMs?: readonly [number, number];
}

const live = new Set<TestCluster>();
process.on('exit', () => {
  for (const cluster of live) cluster.destroySync();
});
// An interrupted run (Ctrl-C, a CI timeout) skips 'exit' hooks unless it exits itself.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const cluster of live) cluster.destroySync();
    process.kill(process.pid, signal);
  });
}

export class TestCluster {
  private readonly sessions = new Set<ClerkSession>();

  private constructor(readonly directory: string, readonly cluster: OpenCluster) {}

  static async start(options: TestClusterOptions = {}): Promise<TestCluster> {
    const directory = mkdtempSync(join(tmpdir(), 'shardkv-cluster-'));
    // Registered before the start, so that a start failing half-way is cleaned up too.
    const placeholder = { destroySync: () => rmSync(directory, { recursive: true, force: true }) };
    live.add(placeholder as TestCluster);
    await startCluster({
      directory,
      shape: {
        groups: options.groups ?? 2, servers: options.servers ?? 3,
        controllers: options.controllers ?? 3, shards: options.shards ?? 10,
      },
      settings: {
        maxRaftStateBytes: options.maxRaftStateBytes ?? null, maxKeyBytes: 1024,
        maxValueBytes: options.maxValueBytes ?? 2 ** 20, trace: options.trace ?? false,
        ...(options.electionTimeoutMs === undefined ? {}
          : { electionTimeoutMs: options.electionTimeoutMs }),
      },
      readyTimeoutMs: 60_000,
    });
    const cluster = new TestCluster(directory, openCluster(directory));
    live.delete(placeholder as TestCluster);
    live.add(cluster);
    return cluster;
  }

  get nodes(): string[] {
    return allNodes(this.cluster.file);
  }

  groupServers(gid: number): readonly string[] {
    return this.cluster.file.groups[gid]!;
  }

  /** Runs `shardkv GROUP SUBCOMMAND --dir DIR ARGS...` in this process. */
  cli(group: string, subcommand: string, ...args: string[]): Promise<CliRun> {
    return runCli(group, subcommand, '--dir', this.directory, ...args);
  }

  /** Like cli(), but the command must succeed; returns its --json object. */
  async ok<T = Record<string, unknown>>(group: string, subcommand: string, ...args: string[]) {
    const run = await this.cli(group, subcommand, ...args, '--json');
    assert.is(run.code, 0, `${group} ${subcommand} ${args.join(' ')}: ${run.stderr}`);
    return run.json<T>();
  }

  /** A clerk on real TCP: `admin` may join / leave / move, `client` may not. */
  async clerk(role: ClerkRole = 'client', limits = {}): Promise<ClerkSession> {
    const session = await openClerk(this.cluster, role, limits);
    this.sessions.add(session);
    return session;
  }

  status(): Promise<NodeReport[]> {
    return clusterStatus(this.cluster);
  }

  kill(name: string): Promise<number> {
    return killNode(this.cluster, name);
  }

  restart(name: string): Promise<NodeReport> {
    return restartNode(this.cluster, name);
  }

  /** SIGKILL of several nodes at the same moment (not one after another through the lock). */
  async killAtOnce(names: readonly string[]): Promise<void> {
    const pids = names.map((name) => [name, runningPid(this.cluster.paths, name)] as const);
    for (const [, pid] of pids) if (pid !== null) process.kill(pid, 'SIGKILL');
    for (const [name, pid] of pids) {
      if (pid !== null) assert.ok(await waitForExit(this.cluster.paths, name, pid, 10_000));
    }
  }

  /** The leader of a group (or the controllers, `ctl`), polling until there is one. */
  async leaderOf(prefix: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reports = await this.status();
      const leader = reports.find(
        (report) => report.name.startsWith(`${prefix}-`) && report.role === 'leader',
      );
      if (leader !== undefined) return leader.name;
      assert.ok(Date.now() < deadline, `no leader in ${prefix} after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /** Kills every process and removes DIR. */
  async destroy(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
    this.destroySync();
    live.delete(this);
  }

  destroySync(): void {
    for (const name of this.nodes) {
      const pid = runningPid(this.cluster.paths, name);
      if (pid !== null) process.kill(pid, 'SIGKILL');
    }
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** Polls `check` until it returns true; fails the test with `what` after the timeout. */
export async function eventually(
  what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The value of an outcome that must be ok. */
export function okValue<T>(outcome: Outcome<T>, what: string): T {
  if (outcome.status !== 'ok') assert.unreachable(`${what}: ${outcome.status}: ${outcome.error}`);
  return (outcome as { value: T }).value;
}

/** A key of shard `shard` (CONTRACT: key2shard is the first byte mod S; 'd' is 100). */
export function keyOfShard(shard: number, suffix: string | number, shardCount = 10): string {
  const first = 100 + shard;
  assert.ok(first < 128 && shard < shardCount, `no one-byte key for shard ${shard}`);
  return `${String.fromCharCode(first)}${suffix}`;
}
