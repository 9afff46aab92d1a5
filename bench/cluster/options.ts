/** The command line of `npm run bench:cluster` (see main.ts for what each flag does). */
export type OperationName = 'put' | 'get' | 'append';

export interface BenchOptions {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly clients: readonly number[];
  readonly operations: readonly OperationName[];
  readonly groups: readonly number[];
  readonly moveMebibytes: readonly number[];
  readonly valueBytes: number;
  /** The shardkv cluster's --max-raft-state (null: none, as `cluster start` defaults). */
  readonly maxRaftStateBytes: number | null;
  readonly vsEtcd: boolean;
  readonly trace: boolean;
  readonly json: boolean;
  /** Busy processes (CPU spinners) running during every row of both systems. */
  readonly loadProcesses: number;
  /** Where the node processes write their CPU profiles (node --cpu-prof), or null. */
  readonly cpuProfileDirectory: string | null;
}

export const usage = `usage: npm run bench:cluster -- [--seconds S] [--warmup S]
    [--clients 1,16,64] [--ops put,get,append] [--groups 1,3] [--move-mib 1,10|none]
    [--value-bytes B] [--max-raft-state B] [--quick] [--vs-etcd] [--trace] [--cpu-prof DIR]
    [--load N] [--json]
  B           bytes, or with a suffix: 64k (KiB), 1m (MiB)
  --quick     --seconds 3 --clients 16,64 --ops put,get --groups 1 --move-mib none
  --vs-etcd   also a 3-member etcd (the etcd binary on the PATH) beside the first shardkv
              cluster, the two taking turns row by row under the same load
  --trace     start the shardkv cluster with --trace (its cost on the same rows)
  --load N    N busy processes (CPU spinners) run during every row of both systems
  --cpu-prof  every shardkv node process writes a V8 CPU profile into DIR when it stops
`;

export class UsageError extends Error {}

const defaults: BenchOptions = {
  seconds: 5, warmupSeconds: 1, clients: [1, 16, 64], operations: ['put', 'get', 'append'],
  groups: [1, 3], moveMebibytes: [1, 10], valueBytes: 64, maxRaftStateBytes: null,
  vsEtcd: false, trace: false,
  json: false, cpuProfileDirectory: null, loadProcesses: 0,
};

function positiveList(flag: string, text: string | undefined): number[] {
  if (text === 'none') return [];
  const values = (text ?? '').split(',').map(Number);
  if (values.length === 0 || values.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new UsageError(`${flag} takes a comma-separated list of positive integers`);
  }
  return values;
}

function positiveNumber(flag: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${flag} takes a positive number`);
  }
  return value;
}

/** A byte count: digits, optionally with k (KiB) or m (MiB). */
function byteCount(flag: string, text: string | undefined): number {
  const match = /^([0-9]+)([km]?)$/i.exec(text ?? '');
  const scale = { '': 1, k: 2 ** 10, m: 2 ** 20 }[(match?.[2] ?? '').toLowerCase()] ?? 1;
  const value = match === null ? NaN : Number(match[1]) * scale;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${flag} takes a byte count (e.g. 64, 64k, 1m)`);
  }
  return value;
}

function processCount(flag: string, text: string | undefined): number {
  if (text === undefined || !/^[0-9]+$/.test(text) || Number(text) > 64) {
    throw new UsageError(`${flag} takes a number of processes from 0 to 64`);
  }
  return Number(text);
}

function directoryText(flag: string, text: string | undefined): string {
  if (text === undefined || text === '') throw new UsageError(`${flag} takes a directory`);
  return text;
}

function operationList(text: string | undefined): OperationName[] {
  const names = (text ?? '').split(',');
  const known = ['put', 'get', 'append'];
  if (names.some((name) => !known.includes(name))) {
    throw new UsageError('--ops takes a comma-separated list of put, get, append');
  }
  return names as OperationName[];
}

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  let options: { -readonly [K in keyof BenchOptions]: BenchOptions[K] } = { ...defaults };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!;
    const value = () => argv[++index];
    switch (flag) {
      case '--help': return 'help';
      case '--seconds': options.seconds = positiveNumber(flag, value()); break;
      case '--warmup': options.warmupSeconds = positiveNumber(flag, value()); break;
      case '--clients': options.clients = positiveList(flag, value()); break;
      case '--ops': options.operations = operationList(value()); break;
      case '--groups': options.groups = positiveList(flag, value()); break;
      case '--move-mib': options.moveMebibytes = positiveList(flag, value()); break;
      case '--value-bytes': options.valueBytes = byteCount(flag, value()); break;
      case '--max-raft-state': options.maxRaftStateBytes = byteCount(flag, value()); break;
      case '--vs-etcd': options.vsEtcd = true; break;
      case '--trace': options.trace = true; break;
      case '--json': options.json = true; break;
      case '--load': options.loadProcesses = processCount(flag, value()); break;
      case '--cpu-prof': options.cpuProfileDirectory = directoryText(flag, value()); break;
      case '--quick':
        options = { ...options, seconds: 3, clients: [16, 64], operations: ['put', 'get'],
          groups: [1], moveMebibytes: [] };
        break;
      default: throw new UsageError(`unknown flag ${flag}`);
    }
  }
  return options;
}
