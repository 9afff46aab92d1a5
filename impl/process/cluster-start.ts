/**
 * `cluster start`: creates DIR's files (cluster file, secrets), spawns one process per node,
 * and returns once every node answers and the controller group has a leader (CONTRACT). The
 * groups are created (gids 100, 101, ...) but none is joined: configuration 0 assigns no shard.
 * If a node fails to come up, every process started is killed and the failure names the node
 * and the last line of its log.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { AdminClient } from './admin-client.js';
import {
  allNodes, clusterFileVersion, nodeNamesOf, writeClusterFile, type ClusterFile,
  type ClusterSettings, type ClusterShape, type NodeAddress,
} from './cluster-file.js';
import { isReady, nodeReports, type NodeReport } from './cluster-status.js';
import { ClusterFailure, ClusterInputError } from './errors.js';
import { withClusterLock } from './lock.js';
import { logTail } from './node-log.js';
import { ClusterPaths } from './paths.js';
import { runningPid } from './pids.js';
import { freePorts } from './ports.js';
import { createSecrets, readSecrets } from './secrets.js';
import { killNodeProcess, spawnNode } from './spawn.js';

export const loopback = '127.0.0.1';
export const lockTimeoutMs = 60_000;
const readyPollMs = 100;

export interface StartOptions {
  readonly directory: string;
  readonly shape: ClusterShape;
  readonly settings: ClusterSettings;
  /** Node i listens on basePort + i; omitted: free ports chosen by the OS. */
  readonly basePort?: number;
  readonly readyTimeoutMs: number;
}

export interface StartResult {
  readonly directory: string;
  readonly nodes: readonly NodeReport[];
  readonly seconds: number;
}

export async function startCluster(options: StartOptions): Promise<StartResult> {
  const began = performance.now();
  const paths = new ClusterPaths(options.directory);
  mkdirSync(paths.root, { recursive: true });
  const file = await withClusterLock(paths, lockTimeoutMs, async () => {
    if (existsSync(paths.clusterFile)) {
      throw new ClusterInputError(`${paths.root} already holds a cluster`);
    }
    const created = await clusterFile(options);
    createSecrets(paths);
    writeClusterFile(paths, created);
    for (const name of allNodes(created)) spawnNode(paths, name);
    return created;
  });
  const nodes = await awaitReady(paths, file, options.readyTimeoutMs);
  return { directory: paths.root, nodes, seconds: (performance.now() - began) / 1000 };
}

async function clusterFile(options: StartOptions): Promise<ClusterFile> {
  const { controllers, groups } = nodeNamesOf(options.shape);
  const names = [...controllers, ...Object.values(groups).flat()];
  const ports = options.basePort === undefined
    ? await freePorts(loopback, names.length)
    : names.map((_, index) => options.basePort! + index);
  const addresses: Record<string, NodeAddress> = {};
  names.forEach((name, index) => (addresses[name] = { host: loopback, port: ports[index]! }));
  return {
    version: clusterFileVersion, shardCount: options.shape.shards, controllers, groups,
    addresses, settings: options.settings,
  };
}

/** Polls status until ready; on a dead node or the deadline, kills every node and throws. */
async function awaitReady(
  paths: ClusterPaths, file: ClusterFile, timeoutMs: number,
): Promise<NodeReport[]> {
  const admin = await AdminClient.open(file, readSecrets(paths).cluster);
  const deadline = Date.now() + timeoutMs;
  let failure: string;
  try {
    for (;;) {
      const reports = await nodeReports(paths, file, admin, 1000);
      if (isReady(reports, file)) return reports;
      const dead = reports.find((report) => !report.alive);
      if (dead !== undefined) {
        failure = `${dead.name} exited during start: ${logTail(paths, dead.name)}`;
        break;
      }
      if (Date.now() > deadline) {
        const waiting = reports.filter((report) => report.role === null).map((r) => r.name);
        failure = `not ready after ${timeoutMs / 1000} s (no answer from ` +
          `${waiting.join(', ') || 'none'}; controller leader: ` +
          `${reports.some((report) => report.role === 'leader') ? 'yes' : 'none'})`;
        break;
      }
      await sleep(readyPollMs);
    }
  } finally {
    await admin.close();
  }
  await killAll(paths, file);
  throw new ClusterFailure(`cluster start failed: ${failure}`);
}

async function killAll(paths: ClusterPaths, file: ClusterFile): Promise<void> {
  await withClusterLock(paths, lockTimeoutMs, async () => {
    await Promise.all(allNodes(file).map(async (name) => {
      const pid = runningPid(paths, name);
      if (pid !== null) await killNodeProcess(paths, name, pid);
    }));
  });
}
