/**
 * `shardkv cluster start|stop|status|kill|restart|net|isolate|heal` (CONTRACT, "The
 * cluster"): real node processes on loopback ports, everything under DIR. The work is done in
 * impl/process; this file parses flags and prints.
 */
import { UsageError } from '../checker/params.js';
import type { NodeReport } from '../impl/process/cluster-status.js';
import { resumeCluster, startCluster, type StartResult } from '../impl/process/cluster-start.js';
import { initSubcommand } from './cluster-init.js';
import {
  clusterStatus, killNode, openCluster, restartNode, stopCluster,
} from '../impl/process/cluster-nodes.js';
import { healNetwork, isolateNode, setUnreliable } from '../impl/process/cluster-faults.js';
import { integerFlag, positiveNumberFlag, type FlagSpec, type ParsedArgs } from './args.js';
import {
  dirFlag, dispatch, helpFlag, jsonFlag, noPositionals, requireDir, type Subcommand,
} from './cluster-common.js';
import { exitOk, type Io } from './io.js';

const mebibyte = 2 ** 20;
const nodeFlag: FlagSpec = {
  name: 'node', kind: 'value', valueName: 'NAME', description: 'the node (ctl-I or gGID-I)',
};

function valueFlag(name: string, valueName: string, description: string): FlagSpec {
  return { name, kind: 'value', valueName, description };
}

const startFlags: readonly FlagSpec[] = [
  dirFlag,
  valueFlag('groups', 'G', 'replica groups, gids 100, 101, ... (default 3)'),
  valueFlag('servers', 'N', 'servers per replica group (default 3)'),
  valueFlag('controllers', 'C', 'servers of the controller group (default 3)'),
  valueFlag('shards', 'S', 'number of shards (default 10)'),
  valueFlag('base-port', 'P', 'node i listens on P + i (default: free ports)'),
  valueFlag('max-raft-state', 'BYTES', 'snapshot once a log exceeds BYTES (default: never)'),
  valueFlag('max-value-bytes', 'BYTES', 'largest value accepted (default 1 MiB)'),
  valueFlag('timeout', 'SECONDS', 'give up if not ready by then (default 60)'),
  { name: 'trace', kind: 'boolean', description: 'record every actor step under DIR/traces' },
  { name: 'resume', kind: 'boolean',
    description: 'start the nodes of the cluster already in DIR that are not running' },
  jsonFlag, helpFlag,
];
/** What `--resume` takes from DIR's cluster file, so it refuses them on the command line. */
const shapeFlags = ['groups', 'servers', 'controllers', 'shards', 'base-port', 'max-raft-state',
  'max-value-bytes'];

function print(args: ParsedArgs, io: Io, text: string, json: object): number {
  io.stdout(args.booleans.has('json') ? JSON.stringify(json) : text);
  return exitOk;
}

async function start(args: ParsedArgs, io: Io): Promise<number> {
  noPositionals(args);
  const readyTimeoutMs = (positiveNumberFlag(args, 'timeout') ?? 60) * 1000;
  if (args.booleans.has('resume')) {
    const given = shapeFlags.find((name) => args.values[name] !== undefined) ??
      (args.booleans.has('trace') ? 'trace' : undefined);
    if (given !== undefined) {
      throw new UsageError(`--resume takes the cluster as DIR holds it; --${given} cannot change it`);
    }
    return printStarted(args, io, await resumeCluster(requireDir(args), readyTimeoutMs));
  }
  const maxRaftStateBytes = integerFlag(args, 'max-raft-state', 1) ?? null;
  const result = await startCluster({
    directory: requireDir(args),
    shape: {
      groups: integerFlag(args, 'groups', 1, 100) ?? 3,
      servers: integerFlag(args, 'servers', 1, 15) ?? 3,
      controllers: integerFlag(args, 'controllers', 1, 15) ?? 3,
      shards: integerFlag(args, 'shards', 1, 256) ?? 10,
    },
    settings: {
      maxRaftStateBytes, maxKeyBytes: 1024,
      maxValueBytes: integerFlag(args, 'max-value-bytes', 1, 64 * mebibyte) ?? mebibyte,
      trace: args.booleans.has('trace'),
    },
    ...(args.values['base-port'] === undefined
      ? {} : { basePort: integerFlag(args, 'base-port', 1, 65535)! }),
    readyTimeoutMs,
  });
  return printStarted(args, io, result);
}

function printStarted(args: ParsedArgs, io: Io, result: StartResult): number {
  const leader = result.nodes.find(
    (node) => node.role === 'leader' && node.name.startsWith('ctl'));
  const already = result.nodes.length - result.started.length;
  const text = `started ${result.started.length} nodes in ${result.directory} ` +
    `(${already > 0 ? `${already} already running; ` : ''}` +
    `${result.seconds.toFixed(1)} s; controller leader ${leader?.name})`;
  return print(args, io, text, {
    ok: true, dir: result.directory, seconds: Number(result.seconds.toFixed(3)),
    started: result.started, nodes: result.nodes,
  });
}

async function stop(args: ParsedArgs, io: Io): Promise<number> {
  noPositionals(args);
  const stopped = await stopCluster(openCluster(requireDir(args)));
  return print(args, io, `stopped ${stopped.length} node processes`, { ok: true, stopped });
}

const columns = ['name', 'pid', 'alive', 'role', 'term', 'commitIndex', 'logBytes',
  'snapshotBytes', 'shards'] as const;

function statusTable(nodes: readonly NodeReport[]): string {
  const cell = (node: NodeReport, column: (typeof columns)[number]) => {
    const value = node[column];
    if (value === null) return '-';
    return Array.isArray(value) ? value.join(',') || '-' : String(value);
  };
  const rows = [columns.map(String), ...nodes.map((node) => columns.map((c) => cell(node, c)))];
  const widths = columns.map((_, index) => Math.max(...rows.map((row) => row[index]!.length)));
  return rows.map((row) => row.map((text, index) => text.padEnd(widths[index]!)).join('  ')
    .trimEnd()).join('\n');
}

async function status(args: ParsedArgs, io: Io): Promise<number> {
  noPositionals(args);
  const nodes = await clusterStatus(openCluster(requireDir(args)));
  const reasons = nodes.flatMap((node) =>
    node.reason === null ? [] : [`${node.name} is down: ${node.reason}`]);
  return print(args, io, [statusTable(nodes), ...reasons].join('\n'), { nodes });
}

function requireNode(args: ParsedArgs): string {
  noPositionals(args);
  const node = args.values['node'];
  if (node === undefined) throw new UsageError('--node NAME is required');
  return node;
}

async function kill(args: ParsedArgs, io: Io): Promise<number> {
  const node = requireNode(args);
  const pid = await killNode(openCluster(requireDir(args)), node);
  return print(args, io, `killed ${node} (pid ${pid})`, { ok: true, node, pid });
}

async function restart(args: ParsedArgs, io: Io): Promise<number> {
  const node = requireNode(args);
  const report = await restartNode(openCluster(requireDir(args)), node);
  const text = `restarted ${node} (pid ${report.pid}, ${report.role}, term ${report.term})`;
  return print(args, io, text, { ok: true, node: report });
}

async function net(args: ParsedArgs, io: Io): Promise<number> {
  noPositionals(args);
  const mode = args.values['unreliable'];
  if (mode === undefined) throw new UsageError('--unreliable on|off is required');
  if (mode !== 'on' && mode !== 'off') {
    throw new UsageError(`--unreliable takes on or off, not '${mode}'`);
  }
  const seed = integerFlag(args, 'seed', 0, 2 ** 48);
  const state = await setUnreliable(openCluster(requireDir(args)), mode === 'on', seed);
  const text = mode === 'on' ? `network unreliable (seed ${state.seed})` : 'network reliable';
  return print(args, io, text, { ok: true, unreliable: state.unreliable, seed: state.seed });
}

async function isolate(args: ParsedArgs, io: Io): Promise<number> {
  const node = requireNode(args);
  const state = await isolateNode(openCluster(requireDir(args)), node);
  const text = `isolated ${node} (isolated now: ${state.isolated.join(', ')})`;
  return print(args, io, text, { ok: true, isolated: state.isolated });
}

async function heal(args: ParsedArgs, io: Io): Promise<number> {
  noPositionals(args);
  await healNetwork(openCluster(requireDir(args)));
  return print(args, io, 'healed: no node is isolated', { ok: true, isolated: [] });
}

const subcommands: Readonly<Record<string, Subcommand>> = {
  init: initSubcommand,
  start: {
    usage: 'shardkv cluster start --dir DIR [--groups G] [--servers N] [--controllers C] ' +
      '[--shards S]\n       [--base-port P] [--max-raft-state BYTES] [--max-value-bytes BYTES] ' +
      '[--trace] [--json]\n       shardkv cluster start --dir DIR --resume [--json]',
    summary: 'start a controller group and replica groups as processes on loopback; returns\n' +
      'when every node answers and the controllers have a leader. No group is joined.\n' +
      'Exit 2 if DIR already holds a cluster. --resume starts again the stopped (or\n' +
      'failed) nodes of the cluster in DIR, from their files.',
    flags: startFlags, run: start,
  },
  stop: {
    usage: 'shardkv cluster stop --dir DIR [--json]',
    summary: 'stop every node process (SIGTERM, then SIGKILL after 5 s); the files stay',
    flags: [dirFlag, jsonFlag, helpFlag], run: stop,
  },
  status: {
    usage: 'shardkv cluster status --dir DIR [--json]',
    summary: 'each node: pid, alive, role, term, commitIndex, logBytes, snapshotBytes, shards',
    flags: [dirFlag, jsonFlag, helpFlag], run: status,
  },
  kill: {
    usage: 'shardkv cluster kill --dir DIR --node NAME [--json]',
    summary: 'SIGKILL one node process (exit 1 if it is not running)',
    flags: [dirFlag, nodeFlag, jsonFlag, helpFlag], run: kill,
  },
  restart: {
    usage: 'shardkv cluster restart --dir DIR --node NAME [--json]',
    summary: 'start one node again from its files (a running one is stopped first)',
    flags: [dirFlag, nodeFlag, jsonFlag, helpFlag], run: restart,
  },
  net: {
    usage: 'shardkv cluster net --dir DIR --unreliable on|off [--seed N] [--json]',
    summary: 'unreliable: every request and reply is delayed 0-26 ms, 10% of each dropped',
    flags: [dirFlag, valueFlag('unreliable', 'on|off', 'turn the unreliable network on or off'),
      valueFlag('seed', 'N', 'seed of the fault draws (default: random, printed)'),
      jsonFlag, helpFlag],
    run: net,
  },
  isolate: {
    usage: 'shardkv cluster isolate --dir DIR --node NAME [--json]',
    summary: 'cut one node off from every peer and client (until heal)',
    flags: [dirFlag, nodeFlag, jsonFlag, helpFlag], run: isolate,
  },
  heal: {
    usage: 'shardkv cluster heal --dir DIR [--json]',
    summary: 'undo every isolate',
    flags: [dirFlag, jsonFlag, helpFlag], run: heal,
  },
};

export function clusterCommand(argv: readonly string[], io: Io): Promise<number> {
  return dispatch('cluster', subcommands, argv, io);
}
