/**
 * `npm run bench:cluster`: throughput and latency of a real shardkv cluster (one and three
 * groups of 3 servers, fsync on) under 1, 16 and 64 closed-loop clients, and the time a moving
 * shard cannot be served against its size; with `--vs-etcd`, a 3-member etcd driven through
 * the same harness in the same run, beside the first shardkv cluster, row for row. A
 * benchmark, not a test: nothing passes or fails on speed, and on a shared machine only
 * figures from one run compare. `--json` prints `{"results":[{system,groups,op,clients,
 * opsPerSec,p50Ms,p99Ms,...}...],"moves":[...],"disk":[...],"loadAverage":[...]}` as the last
 * line; the table and progress go to stderr. `disk`: per cluster whose shards moved, the bytes
 * its group servers keep on disk (log and snapshot) per live key and value byte afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { closedLoop, missedKind, type LoadFigures, type Operation } from './closed-loop.js';
import { EtcdClient, etcdAvailable, startEtcd } from './etcd.js';
import { parseOptions, usage, UsageError, type BenchOptions, type OperationName } from
  './options.js';
import { cpuMilliseconds, voluntarySwitches } from './process-cpu.js';
import {
  diskFigures, electionsBetween, groupFacts, LiveBytes, settledGroupFacts, type DiskFigures,
  type GroupFacts,
} from './group-facts.js';
import { describeReplica } from './replica-disk.js';
import { measureMove, type MoveFigures } from './shard-move.js';
import { expectOk, operationTimeoutSeconds, startShardkv } from './shardkv.js';
import { startBusyLoad } from './busy-load.js';

interface ResultRow extends LoadFigures {
  readonly system: 'shardkv' | 'etcd';
  readonly groups: number;
  readonly op: OperationName;
  /** CPU milliseconds the servers spent per answered operation (warm-up included). */
  readonly serverCpuMsPerOp: number;
  /** Voluntary context switches of the servers' threads per answered operation: its waits. */
  readonly serverWaitsPerOp: number;
  /** ... and this process, which runs every client (clerks or etcd's HTTP clients). */
  readonly clientCpuMsPerOp: number;
  /** shardkv: elections in its groups during the row, and log bytes per replicated live byte. */
  readonly elections: number | null;
  readonly logBytesPerLiveByte: number | null;
  /** get rows: the fill's puts before them that got no answer (unknown) or failed. */
  readonly fillUnknown: number;
  readonly fillFailures: number;
}

/** What became of the fill's puts: counted, never fatal (a get then may find no value). */
interface FillFigures {
  readonly unknown: number;
  readonly failures: number;
}

/** The operations one system offers the harness; null: the system has no such operation. */
interface System {
  readonly name: 'shardkv' | 'etcd';
  readonly groups: number;
  operation(op: OperationName): Operation | null;
  /** The server processes, for their CPU time. */
  pids(): number[];
  /** shardkv's group terms and log bytes (group-facts.ts); null for etcd. */
  facts(): Promise<GroupFacts> | null;
  /** The bytes of the keys and values the clients wrote last (0 for etcd). */
  liveBytes(): number;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

/** Keys spread over all 10 shards (first byte mod 10), a few per client. */
const keysPerClient = 8;
const keyOf = (client: number, iteration: number) =>
  `${String.fromCharCode(97 + ((client + iteration) % 10))}${client}-${iteration % keysPerClient}`;

/** Puts every key the clients read, so that gets find values. */
async function fill(system: System, clients: number): Promise<FillFigures> {
  const put = system.operation('put')!;
  let unknown = 0;
  let failures = 0;
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    for (let iteration = 0; iteration < keysPerClient; iteration++) {
      await put(client, iteration).catch((error: unknown) => {
        if (missedKind(error) === 'unknown') unknown++;
        else failures++;
      });
    }
  }));
  if (unknown + failures > 0) {
    progress(`${system.name}: the get rows' fill: ${unknown} put(s) unknown, ${failures} failed`);
  }
  return { unknown, failures };
}

async function runRow(
  system: System, op: OperationName, clients: number, options: BenchOptions,
  filled: FillFigures,
): Promise<ResultRow | null> {
  const operation = system.operation(op);
  if (operation === null) return null;
  const factsBefore = await system.facts();
  const cpuBefore = cpuMilliseconds(system.pids());
  const waitsBefore = voluntarySwitches(system.pids());
  const clientBefore = process.cpuUsage();
  const figures = await closedLoop(clients, options.seconds, operation, options.warmupSeconds);
  const cpu = cpuMilliseconds(system.pids()) - cpuBefore;
  const waits = voluntarySwitches(system.pids()) - waitsBefore;
  const client = process.cpuUsage(clientBefore);
  const factsAfter = await system.facts();
  const answered = Math.max(1, figures.answeredIncludingWarmup);
  const replicatedBytes = 3 * Math.max(1, system.liveBytes());
  return {
    system: system.name, groups: system.groups, op, ...figures,
    serverCpuMsPerOp: cpu / answered, serverWaitsPerOp: waits / answered,
    clientCpuMsPerOp: (client.user + client.system) / 1000 / answered,
    elections: factsBefore === null || factsAfter === null ? null
      : electionsBetween(factsBefore, factsAfter),
    logBytesPerLiveByte: factsAfter === null ? null : factsAfter.logBytes / replicatedBytes,
    fillUnknown: filled.unknown, fillFailures: filled.failures,
  };
}

/**
 * Every row of every system, the systems taking turns row by row: on a shared machine whose
 * load drifts, shardkv and etcd then meet the same load within seconds of each other.
 */
async function runRows(
  systems: readonly System[], options: BenchOptions, rows: ResultRow[],
): Promise<void> {
  const noFill: FillFigures = { unknown: 0, failures: 0 };
  for (const op of options.operations) {
    const filled = new Map<System, FillFigures>();
    if (op === 'get') {
      for (const system of systems) {
        filled.set(system, await fill(system, Math.max(...options.clients)));
      }
    }
    for (const clients of options.clients) {
      for (const system of systems) {
        // The fill's counts go with the first get row after it.
        const row = await runRow(system, op, clients, options, filled.get(system) ?? noFill);
        filled.delete(system);
        if (row === null) continue;
        rows.push(row);
        progress(formatRow(row));
      }
    }
  }
}

interface Running {
  readonly system: System;
  stop(): Promise<void>;
}

async function startShardkvSystem(options: BenchOptions, groups: number) {
  progress(`shardkv: starting ${groups} group(s) of 3 and 3 controllers` +
    `${options.trace ? ' with --trace' : ''}`);
  const cluster = await startShardkv({
    groups, trace: options.trace, maxValueBytes: Math.max(2 ** 20, options.valueBytes),
    maxRaftStateBytes: options.maxRaftStateBytes,
  });
  const live = new LiveBytes();
  try {
    const sessions = await cluster.clerks(Math.max(...options.clients));
    const value = 'v'.repeat(options.valueBytes);
    const deadline = (client: number) => sessions[client]!.deadline(operationTimeoutSeconds);
    const system: System = {
      name: 'shardkv', groups, pids: () => cluster.pids(),
      facts: () => groupFacts(cluster.cluster), liveBytes: () => live.bytes,
      operation: (op) => async (client, iteration) => {
        const { clerk } = sessions[client]!;
        const key = keyOf(client, iteration);
        if (op === 'get') expectOk(await clerk.get(key, deadline(client)), op);
        else if (op === 'put') {
          expectOk(await clerk.put(key, value, deadline(client)), op);
          live.put(key, options.valueBytes);
        } else {
          expectOk(await clerk.append(key, 'x', deadline(client)), op);
          live.append(key, 1);
        }
      },
    };
    return { system, cluster, live };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

async function startEtcdSystem(options: BenchOptions): Promise<Running> {
  progress('etcd: starting 3 members');
  const directory = mkdtempSync(join(tmpdir(), 'shardkv-bench-etcd-'));
  const etcd = await startEtcd(directory);
  const client = new EtcdClient(etcd.endpoints, Math.max(...options.clients));
  const value = 'v'.repeat(options.valueBytes);
  return {
    system: {
      name: 'etcd', groups: 1, pids: () => [...etcd.pids], facts: () => null, liveBytes: () => 0,
      operation: (op) => op === 'append' ? null : async (index, iteration) => {
        const key = keyOf(index, iteration);
        if (op === 'put') await client.put(index, key, value);
        else await client.get(index, key);
      },
    },
    stop: async () => {
      client.close();
      await etcd.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * One shardkv cluster of `groups` groups, beside etcd when given, then its shard moves and
 * what its servers keep on disk after them.
 */
async function benchGroups(
  options: BenchOptions, groups: number, etcd: Running | null,
  figures: { rows: ResultRow[]; moves: MoveFigures[]; disk: DiskFigures[] },
): Promise<void> {
  const { rows, moves } = figures;
  const { system, cluster, live } = await startShardkvSystem(options, groups);
  try {
    const load = startBusyLoad(options.loadProcesses);
    try {
      await runRows(etcd === null ? [system] : [etcd.system, system], options, rows);
    } finally {
      await load.stop();
    }
    if (groups < 2) return;
    for (const mebibytes of options.moveMebibytes) {
      const move = await measureMove(cluster, mebibytes * 2 ** 20, live)
        .catch((error: Error) => {
          // Reported, not fatal: the rows measured so far still print.
          progress(`shardkv: moving a ${mebibytes} MiB shard failed: ${error.message}`);
          return null;
        });
      if (move === null) break;
      moves.push(move);
      progress(`shardkv: moving a ${mebibytes} MiB shard took ${move.moveMs.toFixed(0)} ms,` +
        ` unserved for ${move.unavailableMs.toFixed(0)} ms; ${move.elections} election(s) in` +
        ` the groups, their logs grew ${(move.logGrowthBytes / 2 ** 20).toFixed(1)} MiB`);
    }
    if (moves.length === 0) return;
    const quiet = await settledGroupFacts(cluster.cluster);
    if (!quiet.settled) progress('shardkv: the group servers\' sizes still moved after 30 s');
    const disk = diskFigures(groups, quiet.facts, live);
    figures.disk.push(disk);
    progress(`shardkv: after the moves, ${disk.diskBytes} bytes on disk for ${disk.liveBytes}` +
      ` live bytes: ${disk.diskBytesPerLiveByte.toFixed(2)} per live byte (CONTRACT's bound` +
      ` ${disk.contractBoundBytes.toFixed(0)} bytes)`);
    for (const replica of disk.replicas) progress(`  ${describeReplica(replica)}`);
    if (disk.worstReplica !== null) {
      progress(`shardkv: worst replica: ${describeReplica(disk.worstReplica)}`);
    }
    // Without a bound nodes never snapshot (CONTRACT): the log keeps every write.
    if (options.maxRaftStateBytes === null) {
      progress('shardkv: no --max-raft-state: the nodes never snapshot, so their logs keep every' +
        ' write; the per-replica bound is for a cluster that snapshots (e.g. --max-raft-state 64k)');
    }
  } finally {
    await cluster.stop();
  }
}

function formatRow(row: ResultRow): string {
  const missed = [
    row.failures > 0 ? `${row.failures} failed` : '',
    row.unknown > 0 ? `${row.unknown} unknown` : '',
    row.fillUnknown + row.fillFailures > 0
      ? `fill: ${row.fillUnknown} unknown, ${row.fillFailures} failed` : '',
  ].filter((text) => text !== '');
  const failures = missed.length > 0 ? ` (${missed.join(', ')})` : '';
  return `${row.system.padEnd(8)}groups ${row.groups}  ${row.op.padEnd(7)}` +
    `clients ${String(row.clients).padStart(3)}  ${row.opsPerSec.toFixed(0).padStart(6)} ops/s` +
    `  p50 ${row.p50Ms.toFixed(1).padStart(6)} ms  p99 ${row.p99Ms.toFixed(1).padStart(6)} ms` +
    `  cpu ${row.serverCpuMsPerOp.toFixed(2).padStart(5)} + ` +
    `${row.clientCpuMsPerOp.toFixed(2).padStart(4)} ms/op` +
    `  waits ${row.serverWaitsPerOp.toFixed(1).padStart(5)}/op` +
    (row.elections === null ? '' : `  elections ${row.elections}`) +
    (row.logBytesPerLiveByte === null ? ''
      : `  log/live ${row.logBytesPerLiveByte.toFixed(2)}`) +
    failures;
}

async function main(): Promise<number> {
  let options: BenchOptions | 'help';
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // One line (CONTRACT: malformed input); --help prints the usage.
    process.stderr.write(`bench:cluster: ${error.message} (see --help)\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (options.vsEtcd && !etcdAvailable()) {
    process.stderr.write('bench:cluster: --vs-etcd needs an etcd binary on the PATH\n');
    return 2;
  }
  if (options.cpuProfileDirectory !== null) {
    // Read by impl/process/spawn.ts when it starts each node process.
    process.env['SHARDKV_CPU_PROF_DIR'] = resolve(options.cpuProfileDirectory);
  }
  const loadBefore = loadavg();
  progress(`load average before: ${loadBefore.map((load) => load.toFixed(2)).join(' ')}`);
  const rows: ResultRow[] = [];
  const moves: MoveFigures[] = [];
  const disk: DiskFigures[] = [];
  // etcd (one Raft group) runs beside the first shardkv cluster, row by row.
  let etcd = options.vsEtcd ? await startEtcdSystem(options) : null;
  try {
    for (const groups of options.groups) {
      await benchGroups(options, groups, etcd, { rows, moves, disk });
      await etcd?.stop();
      etcd = null;
    }
  } finally {
    await etcd?.stop();
  }
  const loadAfter = loadavg();
  progress(`load average after: ${loadAfter.map((load) => load.toFixed(2)).join(' ')}`);
  progress(`\nbusy processes during the rows (--load): ${options.loadProcesses}`);
  progress('system  groups  op      clients   ops/s      p50        p99     ' +
    'cpu: servers + clients, waits: servers');
  for (const row of rows) progress(formatRow(row));
  if (options.json) {
    const round = (value: number) => Math.round(value * 100) / 100;
    process.stdout.write(`${JSON.stringify({
      results: rows.map((row) => ({
        system: row.system, groups: row.groups, op: row.op, clients: row.clients,
        opsPerSec: round(row.opsPerSec), p50Ms: round(row.p50Ms), p99Ms: round(row.p99Ms),
        failures: row.failures, unknown: row.unknown, fillUnknown: row.fillUnknown,
        fillFailures: row.fillFailures, serverCpuMsPerOp: round(row.serverCpuMsPerOp),
        serverWaitsPerOp: round(row.serverWaitsPerOp),
        clientCpuMsPerOp: round(row.clientCpuMsPerOp), elections: row.elections,
        logBytesPerLiveByte: row.logBytesPerLiveByte === null ? null
          : round(row.logBytesPerLiveByte),
      })),
      valueBytes: options.valueBytes, maxRaftStateBytes: options.maxRaftStateBytes,
      moves: moves.map((move) => ({ shardBytes: move.shardBytes, moveMs: round(move.moveMs),
        unavailableMs: round(move.unavailableMs), elections: move.elections,
        logGrowthBytes: move.logGrowthBytes })),
      disk: disk.map((figures) => ({
        ...figures, diskBytesPerLiveByte: round(figures.diskBytesPerLiveByte),
      })),
      trace: options.trace, seconds: options.seconds, loadProcesses: options.loadProcesses,
      loadAverage: [loadBefore, loadAfter],
    })}\n`);
  }
  return 0;
}

// A benchmark reports what went wrong in one line and exits 1; it never dies with a trace.
process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`bench:cluster: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
