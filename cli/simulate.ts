/**
 * `shardkv simulate`: seeded runs of the whole sharded cluster in one process (CONTRACT,
 * issue 12). Per seed a summary line; on a failure the invariant, the seed, the last events
 * and the command that reruns it, and exit 1. Runs stop at the first failing seed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../checker/params.js';
import { BufferedTraceFile } from '../impl/process/trace-file.js';
import { serverBugsFor, simulatorBugNames } from '../verify/simulate/bugs.js';
import {
  defaultOptions, faultModes, simulationOptions, type FaultMode, type SimulationOptions,
} from '../verify/simulate/options.js';
import { failureLines, rerunCommand, runRecord, summaryLine } from '../verify/simulate/report.js';
import { runSimulation, type SimulationResult } from '../verify/simulate/run.js';
import { helpText, integerFlag, parseArgs, type FlagSpec, type ParsedArgs } from './args.js';
import { exitOk, exitProblem, type Io } from './io.js';

const flags: readonly FlagSpec[] = [
  { name: 'seed', kind: 'value', valueName: 'N', description: 'run this seed (default 1)' },
  { name: 'seeds', kind: 'value', valueName: 'A..B', description: 'run seeds A to B in turn' },
  {
    name: 'steps', kind: 'value', valueName: 'M',
    description: `clock events in the active phase of each run (default ${defaultOptions.steps})`,
  },
  {
    name: 'faults', kind: 'value', valueName: 'none|crash|net|all',
    description: 'which faults the seed may inject (default all)',
  },
  { name: 'bug', kind: 'value', valueName: 'NAME', description: 'run with a catalog bug on' },
  {
    name: 'clients', kind: 'value', valueName: 'N',
    description: `clients running a workload (default ${defaultOptions.clients})`,
  },
  {
    name: 'value-bytes', kind: 'value', valueName: 'B',
    description: 'pad every written value to B bytes (default: a token of a few bytes)',
  },
  {
    name: 'events', kind: 'value', valueName: 'FILE',
    description: 'with --seed: write every event line (time ms, node, what) to FILE',
  },
  {
    name: 'history', kind: 'value', valueName: 'FILE',
    description: 'with --seed: write the client history (shardkv lincheck FILE reads it)',
  },
  {
    name: 'trace', kind: 'value', valueName: 'DIR',
    description: 'with --seed: write every actor step to DIR/traces (shardkv conform DIR)',
  },
  { name: 'json', kind: 'boolean', description: 'print one JSON object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const simulateHelp = helpText(
  'shardkv simulate [--seed N | --seeds A..B] [--steps M] [--faults none|crash|net|all]\n' +
    '                        [--bug NAME] [--clients N] [--value-bytes B] [--events FILE]\n' +
    '                        [--history FILE] [--trace DIR] [--json]',
  'Runs a controller group of 3 and groups 100, 101, 102 of 3 servers (10 shards), clients\n' +
    'and an administrator in one process over a simulated network, disk and clock; the seed\n' +
    'chooses the workload, reconfigurations, crashes, partitions and message faults. After\n' +
    'every event: ElectionSafety, StateMachineSafety, AtMostOneServer, StaleRejected,\n' +
    'ConfigsInOrder; at the end: NoLostWrite, ExactlyOnce, the history linearizable\n' +
    '(lincheck), every configuration published and served by its owners. With crashes, one\n' +
    'seed in 4 damages a down server\'s synced disk (a flipped byte, a lost rename): DiskDamage\n' +
    'requires the restart to refuse it (the server stays down) or recover from it.\n' +
    'The same seed gives the same run (the digest of its event log is printed).\n' +
    'Exit: 0 every seed passed, 1 a seed failed (its rerun command is printed), 2 bad usage.',
  flags,
);

interface Settings {
  readonly seeds: readonly [number, number];
  readonly options: Omit<SimulationOptions, 'seed'>;
  readonly eventsFile: string | undefined;
  readonly historyFile: string | undefined;
  readonly traceDirectory: string | undefined;
  readonly json: boolean;
}

export async function simulateCommand(argv: readonly string[], io: Io): Promise<number> {
  const args = parseArgs(argv, flags);
  if (args.booleans.has('help')) {
    io.stdout(simulateHelp);
    return exitOk;
  }
  if (args.positionals.length > 0) {
    throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  }
  return simulateSeeds(settingsOf(args), io);
}

function settingsOf(args: ParsedArgs): Settings {
  const seed = integerFlag(args, 'seed', 0);
  const range = args.values['seeds'];
  if (seed !== undefined && range !== undefined) {
    throw new UsageError('give --seed or --seeds, not both');
  }
  const seeds = range === undefined ? [seed ?? 1, seed ?? 1] as const : seedRange(range);
  const faults = args.values['faults'] ?? defaultOptions.faults;
  if (!(faultModes as string[]).includes(faults)) {
    throw new UsageError(`--faults must be one of ${faultModes.join(', ')}, got '${faults}'`);
  }
  const bug = args.values['bug'] ?? null;
  if (bug !== null && serverBugsFor(bug) === undefined) {
    throw new UsageError(`unknown bug '${bug}' (known: ${simulatorBugNames.join(', ')})`);
  }
  const eventsFile = args.values['events'];
  const historyFile = args.values['history'];
  const traceDirectory = args.values['trace'];
  const single = seeds[0] === seeds[1];
  if ((eventsFile !== undefined || historyFile !== undefined) && !single) {
    throw new UsageError('--events and --history need a single --seed');
  }
  if (traceDirectory !== undefined && !single) {
    throw new UsageError('--trace needs a single --seed');
  }
  const options = {
    ...defaultOptions,
    steps: integerFlag(args, 'steps', 1, 100_000_000) ?? defaultOptions.steps,
    faults: faults as FaultMode,
    bug,
    clients: integerFlag(args, 'clients', 1, 1_000) ?? defaultOptions.clients,
    valueBytes: integerFlag(args, 'value-bytes', 1, 2 ** 20) ?? defaultOptions.valueBytes,
    keepEventLines: eventsFile !== undefined,
    trace: traceDirectory !== undefined,
  };
  return {
    seeds, options, eventsFile, historyFile, traceDirectory, json: args.booleans.has('json'),
  };
}

function seedRange(text: string): readonly [number, number] {
  const match = /^(\d+)\.\.(\d+)$/.exec(text);
  if (match === null) throw new UsageError(`--seeds expects A..B, got '${text}'`);
  const [first, last] = [Number(match[1]), Number(match[2])];
  if (!Number.isSafeInteger(last) || first > last) {
    throw new UsageError(`--seeds ${text}: A must be at most B`);
  }
  return [first, last];
}

/** Seconds between two progress lines on stderr. */
const progressIntervalSeconds = 5;

async function simulateSeeds(settings: Settings, io: Io): Promise<number> {
  const { seeds: [first, last], json } = settings;
  const { shellRuntime } = await import('../verify/simulate/shell-runtime.js');
  const started = performance.now();
  let lastProgress = started;
  const records: Record<string, unknown>[] = [];
  let failed: { result: SimulationResult; options: SimulationOptions } | null = null;
  for (let seed = first; seed <= last && failed === null; seed++) {
    const options = simulationOptions(seed, settings.options);
    const traceFiles = traceFilesIn(settings.traceDirectory);
    const result = await runSimulation(options, shellRuntime, traceFiles?.sinkOf);
    traceFiles?.close();
    records.push(runRecord(result));
    (json ? io.stderr : io.stdout)(summaryLine(result));
    if (result.failure !== null) failed = { result, options };
    if (seed === first) writeFiles(settings, result);
    if (performance.now() - lastProgress > progressIntervalSeconds * 1000 && seed < last) {
      lastProgress = performance.now();
      io.stderr(`simulate: ${seed - first + 1} of ${last - first + 1} seeds, ` +
        `${((lastProgress - started) / 1000).toFixed(1)} s`);
    }
  }
  const seconds = Number(((performance.now() - started) / 1000).toFixed(3));
  const headline = failed === null
    ? `${records.length} seed${records.length === 1 ? '' : 's'} passed (${first}..${last}) ` +
      `in ${seconds} s`
    : `seed ${failed.result.seed} failed after ${records.length} seeds, ${seconds} s`;
  const report = failed === null ? [] : failureLines(failed.result, failed.options);
  if (json) {
    if (report.length > 0) io.stderr(report.join('\n'));
    io.stdout(JSON.stringify({
      ok: failed === null, seeds: [first, last], seedsRun: records.length, seconds,
      ...(failed === null ? {} : {
        failedSeed: failed.result.seed, error: records.at(-1)!['error'],
        rerun: rerunCommand(failed.options),
      }),
      runs: records,
    }));
  } else {
    io.stdout([...report, headline].join('\n'));
  }
  return failed === null ? exitOk : exitProblem;
}

function writeFiles(settings: Settings, result: SimulationResult): void {
  const write = (file: string, text: string) => {
    try {
      writeFileSync(file, text);
    } catch (error) {
      throw new UsageError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code}`);
    }
  };
  if (settings.eventsFile !== undefined) {
    write(settings.eventsFile, result.lines!.join('\n') + '\n');
  }
  if (settings.historyFile !== undefined) write(settings.historyFile, result.history);
  if (settings.traceDirectory !== undefined) {
    write(join(settings.traceDirectory, 'traces', 'history.jsonl'), result.history);
  }
}

/** With --trace DIR: one buffered file per server under DIR/traces, written as the run goes. */
function traceFilesIn(directory: string | undefined) {
  if (directory === undefined) return undefined;
  const folder = join(directory, 'traces');
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw new UsageError(`cannot create ${folder}: ${(error as NodeJS.ErrnoException).code}`);
  }
  const files: BufferedTraceFile[] = [];
  return {
    sinkOf: (server: string) => {
      const file = new BufferedTraceFile(join(folder, `${server}.jsonl`));
      files.push(file);
      return file;
    },
    close: () => files.forEach((file) => file.close()),
  };
}
