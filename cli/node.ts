/**
 * `shardkv node --dir DIR --node NAME [--log FILE] [--listen HOST:PORT]`: one server of the
 * cluster in DIR, in the foreground, until SIGTERM or SIGINT: what an orchestrator (systemd, a
 * container, a Kubernetes StatefulSet) runs on each machine after `cluster init`
 * (docs/deploy.md). It keeps DIR/nodes/NAME/node.pid while it runs, so `cluster status` on
 * the same machine sees it. Exit 0 after a clean shutdown, 1 when the node cannot start or
 * already runs, 2 for bad arguments or a DIR without a cluster or without that node.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { UsageError } from '../checker/params.js';
import { allNodes } from '../impl/process/cluster-file.js';
import { openCluster } from '../impl/process/cluster-nodes.js';
import { fatalLine, runNode } from '../impl/process/node-run.js';
import { removePid, runningPid, writePid } from '../impl/process/pids.js';
import { helpText, parseArgs, type FlagSpec, type ParsedArgs } from './args.js';
import { dirFlag, helpFlag, noPositionals, requireDir } from './cluster-common.js';
import { exitOk, exitProblem, type Io } from './io.js';

const flags: readonly FlagSpec[] = [
  dirFlag,
  { name: 'node', kind: 'value', valueName: 'NAME', description: 'the node (ctl-I or gGID-I)' },
  { name: 'log', kind: 'value', valueName: 'FILE', description: 'append the log to FILE ' +
    '(default: stderr)' },
  { name: 'listen', kind: 'value', valueName: 'HOST:PORT', description: 'listen there instead ' +
    'of at the node\'s address in cluster.json (e.g. 0.0.0.0:7000 in a container)' },
  helpFlag,
];

const usage = 'shardkv node --dir DIR --node NAME [--log FILE] [--listen HOST:PORT]';
const summary = 'run one server of the cluster in DIR in the foreground until SIGTERM or SIGINT\n' +
  '(for systemd, containers, StatefulSets: docs/deploy.md). Exit 0 after a clean\n' +
  'shutdown, 1 if the node cannot start or already runs, 2 for bad arguments.';

function listenAddress(args: ParsedArgs) {
  const text = args.values['listen'];
  if (text === undefined) return undefined;
  const match = /^(.+):(\d+)$/.exec(text);
  const port = Number(match?.[2]);
  if (match === null || port < 1 || port > 65535) {
    throw new UsageError(`--listen expects HOST:PORT, got '${text}'`);
  }
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

function logger(path: string | undefined): (line: string) => void {
  return (line) => {
    const stamped = `${new Date().toISOString()} ${line}\n`;
    if (path === undefined) process.stderr.write(stamped);
    else appendFileSync(path, stamped);
  };
}

export async function nodeCommand(argv: readonly string[], io: Io): Promise<number> {
  const args = parseArgs(argv, flags);
  if (args.booleans.has('help')) {
    io.stdout(helpText(usage, summary, flags));
    return exitOk;
  }
  noPositionals(args);
  const name = args.values['node'];
  if (name === undefined) throw new UsageError('--node NAME is required');
  const listen = listenAddress(args);
  const { paths, file } = openCluster(requireDir(args));
  if (!allNodes(file).includes(name)) {
    throw new UsageError(`no node named '${name}' in ${paths.root} (${allNodes(file).join(', ')})`);
  }
  const running = runningPid(paths, name);
  if (running !== null) {
    io.stderr(`shardkv node: ${name} already runs here (pid ${running})`);
    return exitProblem;
  }
  const log = logger(args.values['log']);
  mkdirSync(paths.dataDirectory(name), { recursive: true });
  writePid(paths, name, process.pid);
  try {
    const node = await runNode({ directory: paths.root, name, log, ...(listen ? { listen } : {}) });
    await node.stopped;
    return exitOk;
  } catch (error) {
    log(fatalLine(error as Error));
    io.stderr(`shardkv node: ${name} could not start: ${(error as Error).message}`);
    return exitProblem;
  } finally {
    if (ownsPidFile(paths.pidFile(name))) removePid(paths, name);
  }
}

function ownsPidFile(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').trim() === String(process.pid);
  } catch {
    return false;
  }
}
