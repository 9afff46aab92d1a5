/**
 * `shardkv conform DIR [--json]` (CONTRACT, issue 14): validates the runtime traces in DIR
 * (or DIR/traces) against the spec: each node's steps replayed, the shells' duties, the
 * global invariants on a happens-before merge, the clients' history. Exit 0 conforming, 1 the
 * first divergence (node, step, expected vs recorded, the steps before it), 2 malformed input.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { UsageError } from '../checker/params.js';
import {
  conform, type ConformResult, type ConformThreads,
} from '../verify/conform/conform.js';
import { divergenceLines, MalformedTraceError } from '../verify/conform/divergence.js';
import { flagSlots } from '../verify/conform/stage-thread.js';
import type { TraceInput, TraceSource } from '../verify/conform/trace-lines.js';
import { helpText, parseArgs, type FlagSpec } from './args.js';
import type { ConformThreadData } from './conform-thread.js';
import { fileSource, mebibyte, readTextFile } from './input.js';
import { exitOk, exitProblem, type Io } from './io.js';

/**
 * The largest history.jsonl read (node traces are streamed): a larger one is refused with one
 * line (exit 2). V8 cannot hold a string much over 512 MiB, so a higher limit would crash.
 */
const historyFileLimitBytes = 256 * mebibyte;
const historyFileName = 'history.jsonl';

/** Progress lines on stderr at most this often. */
const progressIntervalMs = 1_000;
const progressRecordsMin = 100_000;

const flags: readonly FlagSpec[] = [
  { name: 'json', kind: 'boolean', description: 'print one JSON object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const conformHelp = helpText(
  'shardkv conform DIR [--json]',
  'Validates the runtime traces of `cluster start --trace` or `simulate --trace DIR`\n' +
    '(DIR/traces/NODE.jsonl and history.jsonl; DIR may be the traces folder itself):\n' +
    '(a) every node\'s steps replayed through the spec (effects and digests compared),\n' +
    '(b) the shells: delivered messages were sent on that link, persists synced before the\n' +
    'sends that depend on them, restarts loaded what was persisted, (c) ElectionSafety,\n' +
    'StateMachineSafety, AtMostOneServer, StaleRejected and ConfigsInOrder along a\n' +
    'happens-before merge of the traces,\n' +
    '(d) the clients\' history linearizable. Progress goes to stderr once a second on a\n' +
    'terminal or for 100,000 records or more.\n' +
    'Exit: 0 conforming, 1 the first divergence, 2 malformed or missing traces.',
  flags,
);

function traceDirectory(directory: string): string {
  const nested = join(directory, 'traces');
  if (existsSync(nested) && statSync(nested).isDirectory()) return nested;
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new UsageError(`${directory} is not a directory`);
  }
  return directory;
}

/** The traces in DIR (or DIR/traces), and where each node's file is. */
export function traceInput(directory: string): TraceInput & {
  readonly paths: ReadonlyMap<string, string>;
} {
  const folder = traceDirectory(directory);
  const nodes = new Map<string, TraceSource>();
  const paths = new Map<string, string>();
  let history: string | null = null;
  for (const name of readdirSync(folder).sort()) {
    if (!name.endsWith('.jsonl')) continue;
    const path = join(folder, name);
    if (name === historyFileName) {
      history = readTextFile(path, historyFileLimitBytes);
    } else {
      nodes.set(name.slice(0, -'.jsonl'.length), fileSource(path));
      paths.set(name.slice(0, -'.jsonl'.length), path);
    }
  }
  if (nodes.size === 0) throw new UsageError(`${folder} holds no node trace (NODE.jsonl)`);
  return { nodes, history, paths };
}

/**
 * Below this many bytes of node traces conform runs on one thread: each thread loads and
 * warms up the checks' code itself (about a second of CPU under load), more than it saves on
 * a small input (96k records in 41 MB took 3.7-4.0 s of CPU on one thread, 5.7 s on two).
 */
const threadedBytesMin = 64 * mebibyte;
const threadsMax = 2;

/**
 * The per-node checks' threads for the files at `paths` (cli/conform-thread.ts runs each),
 * or undefined for none: a small input, or a single core. `count` overrides the choice.
 */
export function conformThreads(paths: ReadonlyMap<string, string>,
  count?: number): ConformThreads | undefined {
  const weights = new Map([...paths].map(([node, path]) => [node, statSync(path).size]));
  const bytes = [...weights.values()].reduce((sum, size) => sum + size, 0);
  const chosen = count ??
    (bytes < threadedBytesMin ? 0 : Math.min(threadsMax, availableParallelism()));
  if (chosen < 1 || (count === undefined && chosen < 2)) return undefined;
  return {
    count: chosen, weights,
    start: (stage) => {
      const workerData: ConformThreadData = { ...stage,
        paths: stage.nodes.map((node) => paths.get(node)!) };
      return new Worker(threadBootstrap, { eval: true, workerData,
        transferList: [stage.port] });
    },
  };
}

/**
 * The thread's first code: marks the thread ended in its flags on any exit, so a thread
 * that fails, even to load, wakes conform rather than leave it waiting; then loads
 * conform-thread (the compiled .js, or the .ts source through tsx in the tests).
 */
const threadEntry = new URL(`./conform-thread.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url).href;
const threadBootstrap = `const { workerData } = require('node:worker_threads');
process.on('exit', () => {
  const flags = new Int32Array(workerData.flags);
  Atomics.store(flags, ${flagSlots.exited}, 1);
  Atomics.add(flags, ${flagSlots.signal}, 1);
  Atomics.notify(flags, ${flagSlots.signal});
});
${threadEntry.endsWith('.ts')
    ? `import('tsx/esm/api').then((api) => { api.register(); ` +
      `return import(${JSON.stringify(threadEntry)}); });`
    : `import(${JSON.stringify(threadEntry)});`}`;

export function conformCommand(argv: readonly string[], io: Io): number {
  const args = parseArgs(argv, flags);
  if (args.booleans.has('help')) {
    io.stdout(conformHelp);
    return exitOk;
  }
  const [directory, ...extra] = args.positionals;
  if (directory === undefined) throw new UsageError('conform needs a trace DIR');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const started = performance.now();
  let result: ConformResult;
  try {
    let shown = started;
    const input = traceInput(directory);
    result = conform(input, (stage, records) => {
      // At most one line a second, and only on a terminal or for a large input: a verdict
      // on a pipe stays the one line the CONTRACT promises.
      const now = performance.now();
      if (io.interactive !== true && records < progressRecordsMin) return;
      if (now - shown < progressIntervalMs) return;
      shown = now;
      const rate = Math.round(records / ((now - started) / 1000));
      io.stderr(`conform: ${stage}: ${records} records checked (${rate} records/s)`);
    }, conformThreads(input.paths));
  } catch (error) {
    if (error instanceof MalformedTraceError) throw new UsageError(error.message);
    throw error;
  }
  const seconds = Number(((performance.now() - started) / 1000).toFixed(3));
  report(result, seconds, args.booleans.has('json'), io);
  return result.divergence === null ? exitOk : exitProblem;
}

function report(result: ConformResult, seconds: number, json: boolean, io: Io): void {
  const history = result.operations === null ? 'no history.jsonl'
    : `history of ${result.operations} operations linearizable`;
  // A delivery whose send the bounded ledger had forgotten is said, never passed silently.
  const unchecked = result.uncheckedDeliveries === 0 ? ''
    : `; ${result.uncheckedDeliveries} deliveries of messages sent too long before unchecked`;
  const lines = result.divergence === null
    ? [`conforming: ${result.nodes} nodes, ${result.records} records; ${history}${unchecked} ` +
      `(${seconds} s)`]
    : divergenceLines(result.divergence);
  if (!json) {
    io.stdout(lines.join('\n'));
    return;
  }
  if (result.divergence !== null) io.stderr(lines.join('\n'));
  io.stdout(JSON.stringify({
    ok: result.divergence === null,
    result: result.divergence === null ? 'conforming' : 'divergence',
    nodes: result.nodes, records: result.records, operations: result.operations, seconds,
    ...(result.uncheckedDeliveries === 0 ? {}
      : { uncheckedDeliveries: result.uncheckedDeliveries }),
    ...(result.divergence === null ? {} : { error: lines[0], divergence: result.divergence }),
  }));
}
