/**
 * `shardkv cluster init --dir DIR --hosts FILE`: writes DIR's cluster.json and secrets for
 * nodes that may live on other machines, and starts nothing. Each machine then gets a copy of
 * DIR and runs `shardkv node --dir DIR --node NAME` (docs/deploy.md); on one machine,
 * `cluster start --resume` starts them all.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../checker/params.js';
import { clusterFileVersion, nodeNamesOf } from '../impl/process/cluster-file.js';
import { createCluster } from '../impl/process/cluster-start.js';
import { parseHostsFile } from '../impl/process/hosts-file.js';
import { ClusterPaths } from '../impl/process/paths.js';
import { integerFlag, type ParsedArgs } from './args.js';
import {
  dirFlag, helpFlag, jsonFlag, noPositionals, requireDir, type Subcommand,
} from './cluster-common.js';
import { exitOk, type Io } from './io.js';

const mebibyte = 2 ** 20;

function readHosts(args: ParsedArgs) {
  const path = args.values['hosts'];
  if (path === undefined) throw new UsageError('--hosts FILE is required');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  const hosts = parseHostsFile(text);
  if (typeof hosts === 'string') throw new UsageError(`${path}: ${hosts}`);
  return hosts;
}

async function init(args: ParsedArgs, io: Io): Promise<number> {
  noPositionals(args);
  const hosts = readHosts(args);
  const shards = integerFlag(args, 'shards', 1, 256) ?? 10;
  const settings = {
    maxRaftStateBytes: integerFlag(args, 'max-raft-state', 1) ?? null, maxKeyBytes: 1024,
    maxValueBytes: integerFlag(args, 'max-value-bytes', 1, 64 * mebibyte) ?? mebibyte,
    trace: args.booleans.has('trace'),
  };
  const paths = new ClusterPaths(requireDir(args));
  const { controllers, groups } = nodeNamesOf({ ...hosts.shape, shards });
  await createCluster(paths, () => ({
    version: clusterFileVersion, shardCount: shards, controllers, groups,
    addresses: hosts.addresses, settings,
  }));
  const count = Object.keys(hosts.addresses).length;
  const text = `wrote ${paths.clusterFile} and the secrets for ${count} nodes; nothing started`;
  io.stdout(args.booleans.has('json')
    ? JSON.stringify({ ok: true, dir: paths.root, nodes: Object.keys(hosts.addresses) })
    : text);
  return exitOk;
}

export const initSubcommand: Subcommand = {
  usage: 'shardkv cluster init --dir DIR --hosts FILE [--shards S] [--max-raft-state BYTES]\n' +
    '       [--max-value-bytes BYTES] [--trace] [--json]',
  summary: 'write cluster.json and the secrets for the nodes FILE names (one `NAME HOST:PORT`\n' +
    'a line); starts nothing. Run `shardkv node` on each machine (docs/deploy.md).',
  flags: [
    dirFlag,
    { name: 'hosts', kind: 'value', valueName: 'FILE', description: 'NAME HOST:PORT per line' },
    { name: 'shards', kind: 'value', valueName: 'S', description: 'number of shards (default 10)' },
    { name: 'max-raft-state', kind: 'value', valueName: 'BYTES',
      description: 'snapshot once a log exceeds BYTES (default: never)' },
    { name: 'max-value-bytes', kind: 'value', valueName: 'BYTES',
      description: 'largest value accepted (default 1 MiB)' },
    { name: 'trace', kind: 'boolean', description: 'record every actor step under DIR/traces' },
    jsonFlag, helpFlag,
  ],
  run: init,
};
