/**
 * One node process (`cluster start` and `cluster restart` spawn it): reads DIR's cluster file
 * and secrets, listens on its address, and runs one server of the node shell over the real
 * adapters (TCP, files with fsync, real timers, a random generator seeded from entropy). It
 * answers process control (control.ts) and shuts down cleanly on SIGTERM. Everything it logs
 * goes to stderr, which `spawnNode` points at the node's log file.
 *
 *     node-main --dir DIR --node NAME
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFrameOverheadBytes, isClientName, TcpTransport } from '../net/tcp-transport.js';
import type { Server } from '../node/api.js';
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
import { decodeControlRequest, encodeControl, type FaultSettings } from './control.js';
import { faultsFor, readNetworkState } from './network.js';
import { ClusterPaths } from './paths.js';
import { readSecrets } from './secrets.js';

/** How often the node checks that DIR still names it as the running process. */
const ownershipCheckMs = 2000;

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

function parseArguments(argv: readonly string[]): { directory: string; name: string } {
  const directory = argv[argv.indexOf('--dir') + 1];
  const name = argv[argv.indexOf('--node') + 1];
  if (!argv.includes('--dir') || !argv.includes('--node') || !directory || !name) {
    throw new Error('usage: node-main --dir DIR --node NAME');
  }
  return { directory, name };
}

function applyFaults(transport: TcpTransport, faults: FaultSettings): void {
  if (faults.unreliable !== transport.faults.isUnreliable || faults.unreliable) {
    transport.faults.setUnreliable(faults.unreliable, faults.seed);
  }
  transport.faults.isolated = faults.isolated;
}

/** Peer frames: Raft appends and images, as frame-limits.ts derives them. */
function maxFrameBytes(file: ClusterFile): number {
  const { maxValueBytes, maxKeyBytes } = file.settings;
  const { maxEntriesPerAppend } = defaultTuning;
  return peerFrameBytes({ maxKeyBytes, maxValueBytes, maxEntriesPerAppend }) +
    dataFrameOverheadBytes;
}

async function openTransport(file: ClusterFile, paths: ClusterPaths, name: string) {
  const secrets = readSecrets(paths);
  const peers = Object.fromEntries(
    allNodes(file).filter((node) => node !== name).map((node) => [node, file.addresses[node]!]),
  );
  const transport = await TcpTransport.start({
    name, secret: secrets.cluster, clientSecret: secrets.client, listen: file.addresses[name]!,
    peers, log, maxFrameBytes: maxFrameBytes(file),
  });
  const index = allNodes(file).indexOf(name);
  applyFaults(transport, faultsFor(readNetworkState(paths), name, index));
  return transport;
}

/** Answers status and fault settings from admins (the transport refuses clients). */
function serveControl(transport: TcpTransport, server: Server): void {
  transport.onControl((from, frame) => {
    const request = decodeControlRequest(frame);
    if (request === null) return log(`${transport.name}: malformed control frame from ${from}`);
    if (request.kind === 'faults') {
      applyFaults(transport, request.faults);
      log(`${transport.name}: faults set by ${from}: ${JSON.stringify(request.faults)}`);
    }
    const reply = { id: request.id, pid: process.pid, status: server.status() };
    transport.sendControl(from, encodeControl(reply));
  });
}

/** Exits when DIR no longer names this process (DIR removed, or the node taken over). */
function watchOwnership(paths: ClusterPaths, name: string, shutdown: () => void): void {
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

async function main(): Promise<void> {
  const { directory, name } = parseArguments(process.argv.slice(2));
  const paths = new ClusterPaths(directory);
  const file = readClusterFile(paths);
  const transport = await openTransport(file, paths, name);
  const server = createServer({
    name,
    layout: layoutOf(file),
    environment: {
      transport, fileSystem: new NodeFileSystem(), directory: paths.dataDirectory(name),
      clock: new RealClock(), timers: new RealTimers(), random: new SeededRandom(entropySeed()),
      log,
    },
    tuning: {
      maxRaftStateBytes: file.settings.maxRaftStateBytes,
      maxKeyBytes: file.settings.maxKeyBytes,
      maxValueBytes: file.settings.maxValueBytes,
      ...(file.settings.electionTimeoutMs === undefined ? {}
        : { electionTimeoutMs: file.settings.electionTimeoutMs }),
    },
    isAdmin: (from) => !isClientName(from),
    // One line per actor step, written synchronously: a SIGKILL loses none (impl/trace).
    ...(file.settings.trace
      ? { trace: new FileTraceSink(join(paths.tracesDirectory, `${name}.jsonl`)) } : {}),
  });
  serveControl(transport, server);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    log(`${name}: shutting down`);
    void server.stop().finally(() => transport.close()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  watchOwnership(paths, name, shutdown);
  log(`${name}: listening on port ${transport.port} (pid ${process.pid})`);
  await server.start();
  log(`${name}: started from ${paths.dataDirectory(name)}`);
}

main().catch((error: Error) => {
  // The reason on one line (what `cluster start`, `restart` and `status` report), then the
  // stack. Damage in the WAL is never repaired here: the replica stays down (docs/disk-faults.md).
  const refusal = error instanceof WalCorruptionError
    ? '; refusing to start: this replica\'s log cannot be trusted (docs/disk-faults.md)' : '';
  log(`fatal: ${error.message}${refusal}`);
  log(error.stack ?? '(no stack)');
  process.exit(1);
});
