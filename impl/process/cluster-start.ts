/**
 * `cluster start`, `cluster start --resume` and `cluster init`. Creating a cluster writes
 * DIR's files (cluster file, secrets); booting it spawns a process for each node that is not
 * running and returns once every node answers and the controller group has a leader
 * (CONTRACT). The groups are created (gids 100, 101, ...) but none is joined: configuration 0
 * assigns no shard. If a node fails to come up, every process this command started is killed,
 * and the failure names the node, the last line of its log and what the user can do next.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { AdminClient } from './admin-client.js';
import { makeClusterDirectory } from './cluster-directory.js';
import {
  allNodes, clusterFileVersion, nodeNamesOf, readClusterFile, writeClusterFile,
  type ClusterFile, type ClusterSettings, type ClusterShape, type NodeAddress,
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
const portMax = 65535;
/** Hosts a node of this machine can listen on: `--resume` spawns only such clusters. */
const localHosts = new Set([loopback, 'localhost', '::1']);

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
  /** The nodes this command spawned (all of them unless resuming a partly running cluster). */
  readonly started: readonly string[];
  readonly seconds: number;
}

export async function startCluster(options: StartOptions): Promise<StartResult> {
  const began = performance.now();
  checkPortRange(options);
  const paths = new ClusterPaths(options.directory);
  const file = await createCluster(paths, () => loopbackFile(options));
  return bootCluster(paths, file, options.readyTimeoutMs, began);
}

/** `cluster start --resume`: starts every node of DIR's cluster that is not running. */
export async function resumeCluster(
  directory: string, readyTimeoutMs: number,
): Promise<StartResult> {
  const began = performance.now();
  const paths = new ClusterPaths(directory);
  const file = readClusterFile(paths);
  const remote = allNodes(file).find((name) => !localHosts.has(file.addresses[name]!.host));
  if (remote !== undefined) {
    const host = file.addresses[remote]!.host;
    throw new ClusterInputError(`${remote} lives on ${host}, not on this machine: run ` +
      `'shardkv node --dir DIR --node NAME' on each machine instead (docs/deploy.md)`);
  }
  return bootCluster(paths, file, readyTimeoutMs, began);
}

/**
 * Writes DIR's cluster file and secrets (exit 2 if DIR already holds a cluster); starts
 * nothing. `cluster init` passes the addresses it read; `cluster start` picks loopback ports.
 */
export async function createCluster(
  paths: ClusterPaths, makeFile: () => Promise<ClusterFile> | ClusterFile,
): Promise<ClusterFile> {
  makeClusterDirectory(paths.root);
  return withClusterLock(paths, lockTimeoutMs, async () => {
    if (existsSync(paths.clusterFile)) throw new ClusterInputError(alreadyThere(paths));
    const created = await makeFile();
    createSecrets(paths);
    writeClusterFile(paths, created);
    return created;
  });
}

function alreadyThere(paths: ClusterPaths): string {
  return `${paths.root} already holds a cluster: 'shardkv cluster start --dir ${paths.root} ` +
    `--resume' starts its nodes again; to begin anew, 'shardkv cluster stop' it and remove DIR`;
}

function checkPortRange(options: StartOptions): void {
  if (options.basePort === undefined) return;
  const { groups, servers, controllers } = options.shape;
  const last = options.basePort + controllers + groups * servers - 1;
  if (last > portMax) {
    throw new ClusterInputError(`--base-port ${options.basePort} puts the last of ` +
      `${last - options.basePort + 1} nodes on port ${last}, above ${portMax}`);
  }
}

async function loopbackFile(options: StartOptions): Promise<ClusterFile> {
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

async function bootCluster(
  paths: ClusterPaths, file: ClusterFile, readyTimeoutMs: number, began: number,
): Promise<StartResult> {
  const started: string[] = [];
  try {
    await withClusterLock(paths, lockTimeoutMs, async () => {
      for (const name of allNodes(file)) {
        if (runningPid(paths, name) !== null) continue;
        spawnNode(paths, name);
        started.push(name);
      }
    });
  } catch (error) {
    await killAll(paths, started);
    throw error;
  }
  const nodes = await awaitReady(paths, file, started, readyTimeoutMs);
  return { directory: paths.root, nodes, started, seconds: (performance.now() - began) / 1000 };
}

/** Polls status until ready; on a dead node or the deadline, kills `started` and throws. */
async function awaitReady(
  paths: ClusterPaths, file: ClusterFile, started: readonly string[], timeoutMs: number,
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
  await killAll(paths, started);
  throw new ClusterFailure(`cluster start failed: ${failure}; no node process is left ` +
    `running. DIR keeps its files and node logs (${paths.logFile('NAME')}): fix the cause and ` +
    `run 'shardkv cluster start --dir ${paths.root} --resume', or remove DIR to begin anew`);
}

async function killAll(paths: ClusterPaths, names: readonly string[]): Promise<void> {
  await withClusterLock(paths, lockTimeoutMs, async () => {
    await Promise.all(names.map(async (name) => {
      const pid = runningPid(paths, name);
      if (pid !== null) await killNodeProcess(paths, name, pid);
    }));
  });
}
