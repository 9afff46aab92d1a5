/**
 * The node lifecycle commands on an existing cluster: `status`, `stop` (every process, SIGTERM
 * then SIGKILL after a grace period, none left behind), `kill` (SIGKILL one node) and `restart`
 * (start one node again from its files). Those that start or end processes hold DIR's lock,
 * so concurrent calls on one DIR are safe.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AdminClient } from './admin-client.js';
import { allNodes, readClusterFile, type ClusterFile } from './cluster-file.js';
import { lockTimeoutMs } from './cluster-start.js';
import { nodeReport, nodeReports, type NodeReport } from './cluster-status.js';
import { ClusterFailure, ClusterInputError } from './errors.js';
import { withClusterLock } from './lock.js';
import { logTail } from './node-log.js';
import { ClusterPaths } from './paths.js';
import { runningPid } from './pids.js';
import { readSecrets } from './secrets.js';
import { killNodeProcess, spawnNode, stopNodeProcess } from './spawn.js';

const stopGraceMs = 5000;
const restartTimeoutMs = 30_000;

export interface OpenCluster {
  readonly paths: ClusterPaths;
  readonly file: ClusterFile;
}

/** The cluster in `directory`; ClusterInputError (exit 2) when it holds none. */
export function openCluster(directory: string): OpenCluster {
  const paths = new ClusterPaths(directory);
  return { paths, file: readClusterFile(paths) };
}

function checkNode(cluster: OpenCluster, name: string): void {
  if (!allNodes(cluster.file).includes(name)) {
    const known = allNodes(cluster.file).join(', ');
    throw new ClusterInputError(`no node named '${name}' in ${cluster.paths.root} (${known})`);
  }
}

export async function clusterStatus(cluster: OpenCluster, timeoutMs = 2000) {
  const admin = await AdminClient.open(cluster.file, readSecrets(cluster.paths).cluster);
  try {
    return await nodeReports(cluster.paths, cluster.file, admin, timeoutMs);
  } finally {
    await admin.close();
  }
}

/** Ends every node process; returns the names of those that were running. */
export async function stopCluster(cluster: OpenCluster): Promise<string[]> {
  const { paths, file } = cluster;
  return withClusterLock(paths, lockTimeoutMs, async () => {
    const running = allNodes(file).filter((name) => runningPid(paths, name) !== null);
    await Promise.all(running.map(async (name) => {
      const pid = runningPid(paths, name);
      if (pid !== null) await stopNodeProcess(paths, name, pid, stopGraceMs);
    }));
    return running;
  });
}

/** SIGKILL of one node's process; ClusterFailure when it is not running. */
export async function killNode(cluster: OpenCluster, name: string): Promise<number> {
  checkNode(cluster, name);
  return withClusterLock(cluster.paths, lockTimeoutMs, async () => {
    const pid = runningPid(cluster.paths, name);
    if (pid === null) throw new ClusterFailure(`${name} is not running`);
    await killNodeProcess(cluster.paths, name, pid);
    return pid;
  });
}

/**
 * Starts one node from its files (a running one is stopped cleanly first) and returns once it
 * answers with its storage loaded.
 */
export async function restartNode(cluster: OpenCluster, name: string): Promise<NodeReport> {
  checkNode(cluster, name);
  const { paths, file } = cluster;
  return withClusterLock(paths, lockTimeoutMs, async () => {
    const running = runningPid(paths, name);
    if (running !== null) await stopNodeProcess(paths, name, running, stopGraceMs);
    spawnNode(paths, name);
    const admin = await AdminClient.open(file, readSecrets(paths).cluster);
    try {
      return await awaitStarted(cluster, admin, name);
    } finally {
      await admin.close();
    }
  });
}

async function awaitStarted(
  cluster: OpenCluster, admin: AdminClient, name: string,
): Promise<NodeReport> {
  const deadline = Date.now() + restartTimeoutMs;
  for (;;) {
    const report = await nodeReport(cluster.paths, name, admin, 1000);
    if (report.role !== null) return report;
    if (!report.alive) {
      throw new ClusterFailure(`${name} exited: ${logTail(cluster.paths, name)}`);
    }
    if (Date.now() > deadline) {
      throw new ClusterFailure(`${name} did not answer within ${restartTimeoutMs / 1000} s`);
    }
    await sleep(100);
  }
}
