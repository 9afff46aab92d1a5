/**
 * Running one node: reads DIR's cluster file and secrets, listens on its address, and runs one
 * server of the node shell over the real adapters (TCP, files with fsync, real timers, a
 * random generator seeded from entropy). It answers process control (control.ts), shuts down
 * cleanly on SIGTERM or SIGINT, and exits when DIR's pid file stops naming its process. Two
 * callers: node-main (the process `cluster start` spawns) and `shardkv node` (the same node
 * in the foreground, for systemd or a container).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  dataFrameOverheadBytes, isClientName, TcpTransport, type Address,
} from '../net/tcp-transport.js';
import { peerFrameBytes } from '../node/frame-limits.js';
import { createServer } from '../node/server.js';
import { defaultTuning } from '../node/tuning.js';
import { entropySeed } from '../random/entropy-seed.js';
import { SeededRandom } from '../random/seeded-random.js';
import { NodeFileSystem } from '../real/node-file-system.js';
import { RealClock, RealTimers } from '../real/real-clock.js';
import { WalCorruptionError } from '../wal/errors.js';
import { FileTraceSink } from './trace-file.js';
import { allNodes, layoutOf, readClusterFile, type ClusterFile } from './cluster-file.js';
import { applyFaults, serveControl } from './control-service.js';
import { faultsFor, readNetworkState } from './network.js';
import { ClusterPaths } from './paths.js';
import { readSecrets } from './secrets.js';

export interface RunNodeOptions {
  readonly directory: string;
  readonly name: string;
  readonly log: (line: string) => void;
  /** Where to listen instead of the cluster file's address (e.g. 0.0.0.0 in a container). */
  readonly listen?: Address;
}

export interface RunningNode {
  readonly port: number | null;
  /** Resolves once the node has shut down (SIGTERM, SIGINT, or DIR no longer naming it). */
  readonly stopped: Promise<void>;
}

/** How often the node checks that DIR still names it as the running process. */
const ownershipCheckMs = 2000;

/** Peer frames: Raft appends and images, as frame-limits.ts derives them. */
function maxFrameBytes(file: ClusterFile): number {
  const { maxValueBytes, maxKeyBytes } = file.settings;
  const { maxEntriesPerAppend } = defaultTuning;
  return peerFrameBytes({ maxKeyBytes, maxValueBytes, maxEntriesPerAppend }) +
    dataFrameOverheadBytes;
}

/**
 * The one line a node that cannot start logs (what `cluster start`, `restart` and `status`
 * report). Damage in the WAL is never repaired here: the replica stays down
 * (docs/disk-faults.md).
 */
export function fatalLine(error: Error): string {
  const refusal = error instanceof WalCorruptionError
    ? '; refusing to start: this replica\'s log cannot be trusted (docs/disk-faults.md)' : '';
  return `fatal: ${error.message}${refusal}`;
}

async function openTransport(
  file: ClusterFile, paths: ClusterPaths, options: RunNodeOptions,
) {
  const { name, log } = options;
  const secrets = readSecrets(paths);
  const peers = Object.fromEntries(
    allNodes(file).filter((node) => node !== name).map((node) => [node, file.addresses[node]!]),
  );
  const transport = await TcpTransport.start({
    name, secret: secrets.cluster, clientSecret: secrets.client,
    listen: options.listen ?? file.addresses[name]!,
    peers, log, maxFrameBytes: maxFrameBytes(file),
  });
  const index = allNodes(file).indexOf(name);
  applyFaults(transport, faultsFor(readNetworkState(paths), name, index));
  return transport;
}

/** Exits when DIR no longer names this process (DIR removed, or the node taken over). */
function watchOwnership(
  paths: ClusterPaths, name: string, log: (line: string) => void, shutdown: () => void,
): void {
  setInterval(() => {
    let owner = '';
    try {
      owner = readFileSync(paths.pidFile(name), 'utf8').trim();
    } catch {
      // no pid file: the cluster's files are gone
    }
    if (owner !== String(process.pid)) {
      log(`${name}: ${paths.pidFile(name)} no longer names this process; exiting`);
      shutdown();
    }
  }, ownershipCheckMs).unref();
}

/** Starts the node; a failure to start (a busy port, unreadable storage) rejects. */
export async function runNode(options: RunNodeOptions): Promise<RunningNode> {
  const { name, log } = options;
  const paths = new ClusterPaths(options.directory);
  const file = readClusterFile(paths);
  const transport = await openTransport(file, paths, options);
  const server = createServer({
    name,
    layout: layoutOf(file),
    environment: {
      transport, fileSystem: new NodeFileSystem(), directory: paths.dataDirectory(name),
      clock: new RealClock(), timers: new RealTimers(), random: new SeededRandom(entropySeed()),
      log, pause: () => new Promise((resolve) => setImmediate(resolve)),
    },
    tuning: {
      maxRaftStateBytes: file.settings.maxRaftStateBytes,
      maxKeyBytes: file.settings.maxKeyBytes,
      maxValueBytes: file.settings.maxValueBytes,
      // Fewer messages per read (spec/raft/read-index.ts readRoundPeers).
      readRoundToQuorum: true,
      ...(file.settings.electionTimeoutMs === undefined ? {}
        : { electionTimeoutMs: file.settings.electionTimeoutMs }),
    },
    isAdmin: (from) => !isClientName(from),
    // One line per actor step, written synchronously: a SIGKILL loses none (impl/trace).
    ...(file.settings.trace
      ? { trace: new FileTraceSink(join(paths.tracesDirectory, `${name}.jsonl`)) } : {}),
  });
  serveControl(transport, server, log);
  let stopping: Promise<void> | null = null;
  const shutdown = () => {
    if (stopping !== null) return;
    log(`${name}: shutting down`);
    stopping = server.stop().finally(() => transport.close());
    resolveStopped(stopping);
  };
  let resolveStopped: (done: Promise<void>) => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = (done) => void done.finally(resolve);
  });
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  watchOwnership(paths, name, log, shutdown);
  log(`${name}: listening on port ${transport.port} (pid ${process.pid})`);
  try {
    await server.start();
  } catch (error) {
    await transport.close();
    throw error;
  }
  log(`${name}: started from ${paths.dataDirectory(name)}`);
  return { port: transport.port, stopped };
}
