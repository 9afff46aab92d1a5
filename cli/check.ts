/** `shardkv check MODEL [bounds...]`: a bounded model check, per CONTRACT. */
import { join } from 'node:path';
import type { AnyModel, ModelDefinition, Params } from '../checker/model.js';
import { resolveParams, UsageError } from '../checker/params.js';
import { recordsGraph } from '../checker/graph.js';
import { runCheck, strategies, type CheckRequest, type Strategy } from '../checker/run.js';
import type { Path, Progress, SearchResult } from '../checker/search.js';
import {
  buildTrace,
  executePath,
  formatTrace,
  type TraceIdentity,
} from '../checker/trace.js';
import { isModulePath, loadModelModule } from '../checker/load-model.js';
import { findModel, modelDefinitions, registryModule } from '../models/registry.js';
import { livenessLine, livenessSummary, runLivenessPass, type LivenessOutcome } from './check-liveness.js';
import {
  helpText, integerFlag, parseArgs, positiveNumberFlag, type FlagSpec, type ParsedArgs,
} from './args.js';
import { catchInterrupt, exitInterrupted, type Interrupt } from './interrupt.js';
import { exitOk, exitProblem, type Io } from './io.js';
import { checkpointOptions } from './check-checkpoint.js';
import { diskOptions } from './check-disk.js';
import type { CheckpointOptions } from '../checker/checkpoint.js';
import type { DiskOptions } from '../checker/disk-bfs.js';
import { coverageLines, reportFields, sometimesLines, unreached } from './check-report.js';
import { writeTraceFiles } from './trace-files.js';
import type { RefinementFigures } from '../models/raft/refinement-figures.js';
import { formatRefinementFigures, refinementFiguresOf } from './check-refinement.js';

const commonFlags: readonly FlagSpec[] = [
  {
    name: 'strategy',
    kind: 'value',
    valueName: 'bfs|dfs|random',
    description: 'search order (default bfs: shortest counterexample)',
  },
  {
    name: 'workers',
    kind: 'value',
    valueName: 'N',
    description: 'worker threads, bfs only (default 1); counts do not depend on N',
  },
  {
    name: 'bug',
    kind: 'value',
    valueName: 'NAME',
    description: 'check a known bug (see `shardkv bugs`); applies its documented bounds',
  },
  {
    name: 'max-states',
    kind: 'value',
    valueName: 'N',
    description: 'stop after N distinct states (result incomplete)',
  },
  {
    name: 'time-limit',
    kind: 'value',
    valueName: 'SECONDS',
    description: 'stop after SECONDS (result incomplete)',
  },
  {
    name: 'seed',
    kind: 'value',
    valueName: 'N',
    description: 'random only: the seed (default 1); printed with the result',
  },
  {
    name: 'seeds',
    kind: 'value',
    valueName: 'N',
    description: 'random only: a swarm of N seeded searches, seeds SEED..SEED+N-1 (shardkv merge)',
  },
  {
    name: 'walks',
    kind: 'value',
    valueName: 'N',
    description: 'random only: walks to take (default 1000)',
  },
  {
    name: 'walk-length',
    kind: 'value',
    valueName: 'N',
    description: 'random only: steps per walk at most (default 100)',
  },
  {
    name: 'continue',
    kind: 'boolean',
    description: 'report every violated invariant, each with its first trace (TLC -continue)',
  },
  {
    name: 'out',
    kind: 'value',
    valueName: 'FILE',
    description: 'where to write a counterexample (default shardkv-out/MODEL-INVARIANT.trace.json)',
  },
  {
    name: 'no-deadlock',
    kind: 'boolean',
    description: 'do not report states without successors (deadlocks) as violations',
  },
  {
    name: 'no-liveness',
    kind: 'boolean',
    description: "skip the model's temporal properties (checked after a clean bfs/dfs)",
  },
  {
    name: 'checkpoint',
    kind: 'value',
    valueName: 'DIR',
    description: 'bfs: write a checkpoint to DIR between levels (see --every, --resume)',
  },
  {
    name: 'every',
    kind: 'value',
    valueName: 'SECONDS',
    description: 'with --checkpoint: seconds between checkpoints (default 60; 0: every level)',
  },
  {
    name: 'resume',
    kind: 'value',
    valueName: 'DIR',
    description: "bfs: start from DIR's checkpoint (same model, bounds and options) and keep it",
  },
  {
    name: 'disk',
    kind: 'value',
    valueName: 'DIR',
    description: 'bfs: keep the visited set and the frontier in files under DIR (see --memory)',
  },
  {
    name: 'memory',
    kind: 'value',
    valueName: 'SIZE',
    description: 'with --disk: cap of the in-memory part, e.g. 512m (default 512m; k, m, g)',
  },
  {
    name: 'coverage',
    kind: 'boolean',
    description: 'per action: times enabled, taken, new states; flags never-enabled (1 worker)',
  },
  { name: 'quiet', kind: 'boolean', description: 'no progress lines on stderr' },
  { name: 'json', kind: 'boolean', description: 'print one JSON summary object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

/** A model's bounds as flags (`check`, `mbt` and `explore` take them alike). */
export function modelFlags(definition: ModelDefinition): FlagSpec[] {
  return definition.params.map((param) => ({
    name: param.name,
    kind: param.kind === 'boolean' ? 'boolean' : 'value',
    valueName: param.kind === 'choice' ? param.choices?.join('|') : 'N',
    description: `${param.description} (default ${param.default})`,
  }));
}

/** The model's bounds given on the command line, as text (resolveParams parses them). */
export function givenParams(definition: ModelDefinition, args: ParsedArgs): Record<string, string> {
  const given: Record<string, string> = {};
  for (const param of definition.params) {
    if (param.name in args.values) given[param.name] = args.values[param.name]!;
    if (args.booleans.has(param.name)) given[param.name] = 'true';
  }
  return given;
}

export function checkHelp(definition?: ModelDefinition): string {
  const models = modelDefinitions.map((candidate) => candidate.name).join(', ');
  const flags = definition ? [...modelFlags(definition), ...commonFlags] : commonFlags;
  const summary = definition
    ? `${definition.description}\nInvariants: ${definition.invariants.join(', ')}`
    : [
        'Explores every state of MODEL within its bounds and checks its invariants.',
        `Models: ${models} (\`shardkv check MODEL --help\` lists a model's bounds).`,
        'Exit: 0 no violation, 1 violation, 2 usage error.',
      ].join('\n');
  return helpText(
    `shardkv check ${definition?.name ?? 'MODEL'} [bounds...] [options]`,
    summary,
    flags,
  );
}

/** What a `check` command line asks for, parsed and validated. */
interface CheckSettings {
  readonly definition: ModelDefinition;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly strategy: Strategy;
  readonly workers: number;
  readonly seed: number;
  readonly maxStates: number | undefined;
  readonly timeLimitSeconds: number | undefined;
  readonly walks: number | undefined;
  readonly walkLength: number | undefined;
  readonly seeds: number | undefined;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly continued: boolean;
  readonly out: string | undefined;
  readonly deadlock: boolean;
  readonly liveness: boolean;
  readonly coverage: boolean;
  readonly checkpoint: CheckpointOptions | undefined;
  readonly disk: DiskOptions | undefined;
}

/** The settings, or the exit code when the command is answered already (help). */
async function parseCheck(argv: readonly string[], io: Io): Promise<CheckSettings | number> {
  const name = argv[0];
  if (name === undefined || name.startsWith('--')) {
    if (argv.includes('--help')) {
      io.stdout(checkHelp());
      return exitOk;
    }
    throw new UsageError('check needs a MODEL (see `shardkv models`)');
  }
  const loaded = isModulePath(name) ? await loadModelModule(name) : undefined;
  const definition = findModel(name) ?? loaded;
  if (!definition) {
    const known = modelDefinitions.map((candidate) => candidate.name).join(', ');
    throw new UsageError(`unknown model '${name}' (known: ${known})`);
  }
  const args = parseArgs(argv.slice(1), [...modelFlags(definition), ...commonFlags]);
  if (args.booleans.has('help')) {
    io.stdout(checkHelp(definition));
    return exitOk;
  }
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  const given = givenParams(definition, args);
  const bug = args.values['bug'];
  const strategy = (args.values['strategy'] ?? 'bfs') as Strategy;
  if (!strategies.includes(strategy)) {
    throw new UsageError(`--strategy must be one of ${strategies.join(', ')}, got '${strategy}'`);
  }
  refuseOptionsOfOtherStrategies(args.values, strategy);
  const disk = diskOptions(args);
  const workers = integerFlag(args, 'workers', 1, 64) ?? 1;
  const continued = args.booleans.has('continue');
  if (continued && workers > 1) {
    throw new UsageError('--continue runs on one thread: leave out --workers');
  }
  const coverage = args.booleans.has('coverage');
  if (coverage && (workers > 1 || strategy === 'random')) {
    throw new UsageError('--coverage counts an exhaustive search on one thread (bfs or dfs)');
  }
  return {
    definition,
    params: resolveParams(definition, bug, given),
    bug,
    strategy,
    workers,
    seed: integerFlag(args, 'seed', 0, 2 ** 32 - 1) ?? 1,
    maxStates: integerFlag(args, 'max-states', 1),
    timeLimitSeconds: positiveNumberFlag(args, 'time-limit'),
    walks: integerFlag(args, 'walks', 1),
    walkLength: integerFlag(args, 'walk-length', 1),
    seeds: integerFlag(args, 'seeds', 1),
    json: args.booleans.has('json'),
    quiet: args.booleans.has('quiet'),
    continued,
    out: args.values['out'],
    deadlock: !args.booleans.has('no-deadlock'),
    liveness: !args.booleans.has('no-liveness'),
    coverage,
    checkpoint: checkpointOptions(args, strategy, { definition, params: resolveParams(definition,
      bug, given), bug, deadlock: !args.booleans.has('no-deadlock'), continued }),
    disk,
  };
}

export async function checkCommand(argv: readonly string[], io: Io): Promise<number> {
  const settings = await parseCheck(argv, io);
  if (typeof settings === 'number') return settings;
  const { definition, params, bug, strategy, seed, json, quiet } = settings;
  // Built before the header: a model that refuses its parameters says so first (exit 2).
  const prebuilt = definition.create(params, bug);
  const workers = searchWorkers(settings, prebuilt);
  const summary: SummaryContext = {
    io, json, definition, params, bug, strategy, workers, seed,
    continued: settings.continued,
    invariants: prebuilt.invariants.map((invariant) => invariant.name),
  };
  // Every strategy reads the stop flag (bfs on several workers passes it to all of them).
  const interrupt = catchInterrupt(io);
  let outcome: Awaited<ReturnType<typeof runCheck>>;
  try {
    // Printed once Ctrl-C is caught: from the header on, Ctrl-C prints a summary.
    if (!quiet) {
      io.stderr(checkingLine(definition, params, bug, strategy, workers, seed, !!settings.disk));
      if (workers < settings.workers) {
        io.stderr(
          `One thread: it records the state graph the liveness pass needs as it searches ` +
            `(--no-liveness searches on ${settings.workers} workers)`,
        );
      }
    }
    outcome = await runCheck(checkRequest({ ...settings, workers }, prebuilt, interrupt, io));
  } finally {
    interrupt.dispose();
  }
  const { model, violations } = outcome;
  const written = violations.map((violation, index) => {
    const identity = { model: definition.name, params, bug };
    const path = tracePath(settings, violation.invariant, index);
    return writeViolation(model, identity, violation, path, json ? undefined : io,
      definition.modulePath);
  });
  const liveness = settings.liveness
    ? runLivenessPass(settings, model, outcome.search,
      (property) => tracePath(settings, property, 0), io)
    : undefined;
  const stopped = interrupt.interrupted && outcome.search.stoppedBy === 'time-limit';
  const search: Reported = stopped ? { ...outcome.search, stoppedBy: 'interrupt' } : outcome.search;
  // The figures take a second pass: only after a complete search that found every step mapped.
  const figures = search.result === 'ok' && !search.stoppedBy
    ? refinementFiguresOf(prebuilt) : undefined;
  printSummary(summary, search, written, liveness, figures);
  if (stopped) return exitInterrupted;
  const livenessFailed = liveness?.result.result === 'violation';
  const failed = search.result === 'violation' || livenessFailed || unreached(search).length > 0;
  return failed ? exitProblem : exitOk;
}

function checkRequest(
  settings: CheckSettings,
  model: AnyModel,
  interrupt: Interrupt,
  io: Io,
): CheckRequest {
  const { maxStates, timeLimitSeconds, walks, walkLength } = settings;
  return {
    definition: settings.definition,
    registry: registryModule,
    model,
    params: settings.params,
    bug: settings.bug,
    strategy: settings.strategy,
    workers: settings.workers,
    seed: settings.seed,
    everyViolation: settings.continued,
    ...(walks !== undefined ? { walks } : {}),
    ...(walkLength !== undefined ? { walkLength } : {}),
    ...(settings.seeds !== undefined ? { seeds: settings.seeds } : {}),
    search: {
      ...(maxStates !== undefined ? { maxStates } : {}),
      ...(timeLimitSeconds !== undefined ? { timeLimitSeconds } : {}),
      deadlock: settings.deadlock,
      ...(settings.coverage ? { coverage: true } : {}),
      ...(settings.checkpoint ? { checkpoint: settings.checkpoint } : {}),
      ...(settings.disk ? { disk: settings.disk } : {}),
      // The liveness pass then analyses the graph of this search instead of building one.
      ...(wantsGraph(settings, model) ? { recordGraph: true } : {}),
      stopFlag: interrupt.stopFlag,
      onProgress: (progress: Progress) => {
        if (!settings.quiet) io.stderr(formatProgress(progress));
      },
    },
  };
}

/** The liveness pass will run: the search should record the state graph for it. */
function wantsGraph(settings: CheckSettings, model: AnyModel): boolean {
  return settings.liveness && (model.properties ?? []).length > 0;
}

/**
 * The workers the search runs on: one when that thread records the graph for the liveness
 * pass. The workers keep no graph, so the pass would build it by a second search on one
 * thread: TwoPhase 9 RMs took 167 s on 2 workers so, 68 s on one thread recording
 * (2026-12-03, load average 8 to 9).
 */
function searchWorkers(settings: CheckSettings, model: AnyModel): number {
  if (settings.workers === 1 || settings.strategy !== 'bfs' || !wantsGraph(settings, model)) {
    return settings.workers;
  }
  const { checkpoint } = settings;
  return recordsGraph(model, { recordGraph: true, ...(checkpoint ? { checkpoint } : {}) })
    ? 1
    : settings.workers;
}

/**
 * Where a counterexample goes: shardkv-out/MODEL[-BUG]-INVARIANT.trace.json, or --out FILE;
 * with --out and --continue, the first trace takes FILE and the others FILE-INVARIANT.
 */
function tracePath(settings: CheckSettings, invariant: string, index: number): string {
  const { out, bug, definition } = settings;
  if (out === undefined) {
    return join('shardkv-out', `${definition.name}${bug ? `-${bug}` : ''}-${invariant}.trace.json`);
  }
  return index === 0 ? out : out.replace(/(\.trace)?\.json$/, '') + `-${invariant}.trace.json`;
}

function checkingLine(
  definition: ModelDefinition,
  params: Params,
  bug: string | undefined,
  strategy: Strategy,
  workers: number,
  seed: number,
  onDisk: boolean,
): string {
  const bounds = describeBounds(definition, params);
  const header = `${definition.name} ${bounds}${bug ? ` bug=${bug}` : ''}`;
  const how =
    strategy === 'random'
      ? `random, seed ${seed}`
      : strategy === 'bfs'
        ? `bfs, ${workers} worker${workers > 1 ? 's' : ''}${onDisk ? ', on disk' : ''}`
        : strategy;
  return `Checking ${header.trimEnd()} (${how})`;
}

/** A search result as reported: a Ctrl-C'd search says it stopped by `interrupt`. */
type Reported = Omit<SearchResult, 'stoppedBy'> & {
  readonly stoppedBy?: SearchResult['stoppedBy'] | 'interrupt';
};

/** What the summary needs: the command's settings, where to print, the invariants checked. */
type SummaryContext = Pick<
  CheckSettings,
  'json' | 'definition' | 'params' | 'bug' | 'strategy' | 'workers' | 'seed' | 'continued'
> & { readonly io: Io; readonly invariants: readonly string[] };

function printSummary(
  context: SummaryContext,
  search: Reported,
  written: readonly WrittenViolation[],
  liveness?: LivenessOutcome,
  figures?: RefinementFigures,
): void {
  const { io, definition, strategy } = context;
  // Exhaustive: every state within the bounds was explored (no stop, no early violation).
  const exhaustive =
    search.exhaustive &&
    !search.stoppedBy &&
    (search.result !== 'violation' || context.continued);
  const statesPerSecond = Math.round(search.statesGenerated / Math.max(search.seconds, 1e-6));
  const [first] = written;
  const lasso = liveness?.result.result === 'violation' ? liveness.result : undefined;
  if (!context.json) {
    io.stdout(summaryLine(search, statesPerSecond, exhaustive, lasso?.property));
    if (written.length > 1) io.stdout(violationError(written));
    if (liveness) io.stdout(livenessLine(liveness.result));
    for (const line of [...coverageLines(search), ...sometimesLines(search)]) io.stdout(line);
    if (figures) io.stdout(formatRefinementFigures(figures));
    return;
  }
  const [vacuous] = sometimesLines(search);
  io.stdout(
    JSON.stringify({
      ok: search.result !== 'violation' && !lasso && vacuous === undefined,
      ...(vacuous ? { error: vacuous } : {}),
      ...(first ? { error: violationError(written) } : {}),
      ...(lasso
        ? {
            error: `temporal property ${lasso.property} is violated`,
            property: lasso.property,
            loop: lasso.lasso!.loop,
          }
        : {}),
      model: definition.name,
      params: context.params,
      ...(context.bug ? { bug: context.bug } : {}),
      strategy,
      ...(strategy === 'bfs' ? { workers: context.workers } : {}),
      ...(strategy === 'random' ? { seed: search.swarm?.violatingSeed ?? context.seed } : {}),
      ...(search.swarm ? { swarm: search.swarm } : {}),
      result: lasso ? 'violation' : search.result,
      ...(search.invariant ? { invariant: search.invariant } : {}),
      ...(search.stoppedBy ? { stoppedBy: search.stoppedBy } : {}),
      exhaustive,
      invariantsChecked: context.invariants,
      distinctStates: search.distinctStates,
      statesGenerated: search.statesGenerated,
      depth: search.depth,
      seconds: round(search.seconds),
      statesPerSecond,
      ...(first ? { trace: first.trace, traceLength: first.traceLength } : {}),
      ...(liveness?.trace ? { trace: liveness.trace, traceLength: liveness.traceLength } : {}),
      ...(liveness ? { liveness: livenessSummary(liveness.result) } : {}),
      ...(figures ? { refinement: figures } : {}),
      ...(first?.witness ? { witness: first.witness } : {}),
      ...(context.continued ? { violations: written } : {}),
      ...reportFields(search),
    }),
  );
}

interface WrittenViolation {
  readonly invariant: string;
  readonly trace: string;
  readonly traceLength: number;
  /** Why the invariant fails in the last state, when the invariant can say (`explain`). */
  readonly witness?: string;
}

function violationError(written: readonly WrittenViolation[]): string {
  const names = written.map((violation) => violation.invariant);
  return names.length === 1
    ? `invariant ${names[0]} is violated`
    : `${names.length} invariants are violated: ${names.join(', ')}`;
}

/** Writes one counterexample (trace and ITF) and, for people, prints it. */
export function writeViolation(
  model: AnyModel,
  identity: TraceIdentity,
  violation: { readonly invariant: string; readonly path: Path },
  tracePath: string,
  io: Io | undefined,
  module?: string,
): WrittenViolation {
  const built = buildTrace(model, identity, violation.path, violation.invariant);
  // A model loaded from a file: replay finds it again by its module path.
  const trace = module ? { ...built, module } : built;
  const itfPath = writeTraceFiles(tracePath, trace);
  const { states } = executePath(model, violation.path);
  const invariant = model.invariants.find((candidate) => candidate.name === violation.invariant);
  const witness = invariant?.explain?.(states.at(-1));
  if (io) {
    io.stdout(
      `Invariant ${violation.invariant} is violated after ${trace.steps.length} steps ` +
        '(values in a TLA+-like notation; positions count from 0):',
    );
    io.stdout(formatTrace(trace));
    if (witness) io.stdout(`Why ${violation.invariant} fails: ${witness}`);
    io.stdout(`Trace written to ${tracePath} (ITF: ${itfPath})`);
  }
  return {
    invariant: violation.invariant,
    trace: tracePath,
    traceLength: trace.steps.length,
    ...(witness ? { witness } : {}),
  };
}

/** `lassoProperty`: the temporal property a lasso violates, so that no line reads "OK". */
function summaryLine(
  search: Reported, statesPerSecond: number, exhaustive: boolean, lassoProperty?: string,
): string {
  const verdict =
    search.result === 'violation'
      ? `VIOLATION of ${search.invariant}`
      : lassoProperty !== undefined
        ? `VIOLATION of temporal property ${lassoProperty} (a lasso; no invariant is violated` +
          `${exhaustive ? ' within the bounds' : ''})`
      : search.result === 'incomplete'
        ? `INCOMPLETE: stopped by ${search.stoppedBy} before the bounded space was exhausted; ` +
          'no violation so far'
        : exhaustive
          ? 'OK: no invariant is violated within the bounds'
          : 'OK: no violation in the sampled behaviours (random simulation is not exhaustive)';
  return [
    verdict,
    `${search.distinctStates} distinct states, ${search.statesGenerated} generated, ` +
      `depth ${search.depth},` +
      ` ${round(search.seconds)} s (${statesPerSecond} generated states/s)`,
  ].join('\n');
}

export function formatProgress(progress: Progress): string {
  const memory = process.memoryUsage();
  const mebibytes = (bytes: number) => Math.round(bytes / 2 ** 20);
  const rate = Math.round(progress.statesGenerated / Math.max(progress.seconds, 1e-6));
  return (
    `progress: ${progress.statesGenerated} generated, ${progress.distinctStates} distinct, ` +
    `queue ${progress.queue}, depth ${progress.depth}, ${rate} generated states/s, ` +
    `memory ${mebibytes(memory.rss)} MiB resident (JS heap ${mebibytes(memory.heapUsed)} MiB), ` +
    `${round(progress.seconds)} s`
  );
}

/** Which strategy each strategy-specific option belongs to. */
const strategyOfOption: Readonly<Record<string, Strategy>> = {
  seed: 'random',
  walks: 'random',
  'walk-length': 'random',
  seeds: 'random',
};

/** An option the chosen strategy would ignore is a usage error, never a silent no-op. */
function refuseOptionsOfOtherStrategies(
  values: Readonly<Record<string, string>>,
  strategy: Strategy,
): void {
  if (values['workers'] !== undefined && values['workers'] !== '1' && strategy !== 'bfs') {
    throw new UsageError(
      `--workers applies to --strategy bfs only (${strategy} runs on one thread)`,
    );
  }
  for (const [option, owner] of Object.entries(strategyOfOption)) {
    if (values[option] !== undefined && strategy !== owner) {
      throw new UsageError(`--${option} applies to --strategy ${owner} only`);
    }
  }
}

/**
 * The bounds worth printing: every integer bound the model runs with, a boolean only when
 * on, a choice only when it is not its default (no `symmetry=false preset=none`).
 */
export function describeBounds(definition: ModelDefinition, params: Params): string {
  // A preset's own bounds, without those it ignores (boundsInUse).
  const inUse = definition.boundsInUse?.(params) ?? params;
  return definition.params
    .filter((spec) => {
      const value = inUse[spec.name];
      if (value === undefined) return false;
      if (spec.kind === 'boolean') return value === true;
      if (spec.kind === 'choice') return value !== spec.default;
      return true;
    })
    .map((spec) => (spec.kind === 'boolean' ? spec.name : `${spec.name}=${inUse[spec.name]}`))
    .join(' ');
}

export function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
