/** `shardkv check MODEL [bounds...]`: a bounded model check, per CONTRACT. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ModelDefinition } from '../checker/model.js';
import { describeParams, resolveParams, UsageError } from '../checker/params.js';
import { runCheck, strategies, type Strategy } from '../checker/run.js';
import type { Progress, SearchResult } from '../checker/search.js';
import { buildTrace, formatTrace, traceToItf } from '../checker/trace.js';
import { resolveModel } from '../checker/load-model.js';
import { checkLiveness, type LivenessResult } from '../checker/liveness.js';
import { buildLassoTrace, formatLasso, lassoToItf } from '../checker/liveness-trace.js';
import { modelDefinitions } from '../spec/registry.js';
import { helpText, integerFlag, parseArgs, positiveNumberFlag, type FlagSpec } from './args.js';
import { exitOk, exitProblem, type Io } from './io.js';

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
    description: 'worker threads for bfs (default 1); counts do not depend on N',
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
    description: 'seed of --strategy random (default 1); printed with the result',
  },
  {
    name: 'walks',
    kind: 'value',
    valueName: 'N',
    description: 'random walks to take (default 1000)',
  },
  {
    name: 'walk-length',
    kind: 'value',
    valueName: 'N',
    description: 'steps per random walk at most (default 100)',
  },
  {
    name: 'continue',
    kind: 'boolean',
    description: 'keep exploring after a violation (report the first; TLC -continue)',
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
  { name: 'quiet', kind: 'boolean', description: 'no progress lines on stderr' },
  { name: 'json', kind: 'boolean', description: 'print one JSON summary object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

function modelFlags(definition: ModelDefinition): FlagSpec[] {
  return definition.params.map((param) => ({
    name: param.name,
    kind: param.kind === 'boolean' ? 'boolean' : 'value',
    valueName: param.kind === 'choice' ? param.choices?.join('|') : 'N',
    description: `${param.description} (default ${param.default})`,
  }));
}

export function checkHelp(definition?: ModelDefinition): string {
  const models = modelDefinitions.map((candidate) => candidate.name).join(', ');
  const flags = definition ? [...modelFlags(definition), ...commonFlags] : commonFlags;
  const summary = definition
    ? `${definition.description}\nInvariants: ${definition.invariants.join(', ')}`
    : [
        'Explores every state of MODEL within its bounds and checks its invariants.',
        `Models: ${models} (\`shardkv check MODEL --help\` lists a model's bounds),`,
        'or the path of a module that exports a model (README "Adding a model").',
        "A model's temporal properties are checked after a clean bfs/dfs (--no-liveness skips).",
        'Exit: 0 no violation, 1 violation, 2 usage error.',
      ].join('\n');
  return helpText(
    `shardkv check ${definition?.name ?? 'MODEL'} [bounds...] [options]`,
    summary,
    flags,
  );
}

export async function checkCommand(argv: readonly string[], io: Io): Promise<number> {
  const name = argv[0];
  if (name === undefined || name.startsWith('--')) {
    if (argv.includes('--help')) {
      io.stdout(checkHelp());
      return exitOk;
    }
    throw new UsageError('check needs a MODEL (see `shardkv models`)');
  }
  const definition = await resolveModel(name);
  if (!definition) {
    const known = modelDefinitions.map((candidate) => candidate.name).join(', ');
    throw new UsageError(`unknown model '${name}' (known: ${known})`);
  }
  const flags = modelFlags(definition);
  const args = parseArgs(argv.slice(1), [...flags, ...commonFlags]);
  if (args.booleans.has('help')) {
    io.stdout(checkHelp(definition));
    return exitOk;
  }
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  const given: Record<string, string> = {};
  for (const param of definition.params) {
    if (param.name in args.values) given[param.name] = args.values[param.name]!;
    if (args.booleans.has(param.name)) given[param.name] = 'true';
  }
  const bug = args.values['bug'];
  const params = resolveParams(definition, bug, given);
  const strategy = (args.values['strategy'] ?? 'bfs') as Strategy;
  if (!strategies.includes(strategy)) {
    throw new UsageError(`--strategy must be one of ${strategies.join(', ')}, got '${strategy}'`);
  }
  const workers = integerFlag(args, 'workers', 1, 64) ?? 1;
  const seed = integerFlag(args, 'seed', 0, 2 ** 32 - 1) ?? 1;
  const maxStates = integerFlag(args, 'max-states', 1);
  const timeLimitSeconds = positiveNumberFlag(args, 'time-limit');
  const walks = integerFlag(args, 'walks', 1);
  const walkLength = integerFlag(args, 'walk-length', 1);
  const json = args.booleans.has('json');
  const quiet = args.booleans.has('quiet');
  if (workers > 1 && strategy !== 'bfs' && !quiet) {
    io.stderr(`note: --workers applies to bfs; ${strategy} runs on one thread`);
  }
  const header = `${definition.name} ${describeParams(params)}${bug ? ` bug=${bug}` : ''}`;
  if (!quiet) {
    const seedNote = strategy === 'random' ? `, seed ${seed}` : '';
    io.stderr(
      `Checking ${header} (${strategy}, ${workers} worker${workers > 1 ? 's' : ''}${seedNote})`,
    );
  }
  const { model, search } = await runCheck({
    definition,
    params,
    bug,
    strategy,
    workers,
    seed,
    ...(walks !== undefined ? { walks } : {}),
    ...(walkLength !== undefined ? { walkLength } : {}),
    search: {
      ...(maxStates !== undefined ? { maxStates } : {}),
      ...(timeLimitSeconds !== undefined ? { timeLimitSeconds } : {}),
      continueAfterViolation: args.booleans.has('continue'),
      deadlock: !args.booleans.has('no-deadlock'),
      ...(quiet ? {} : { onProgress: (progress: Progress) => io.stderr(formatProgress(progress)) }),
    },
  });

  // Liveness is a second pass over a graph with edges, after a clean exhaustive search.
  const properties = model.properties ?? [];
  let liveness: LivenessResult | undefined;
  if (search.result === 'ok' && search.exhaustive && properties.length > 0) {
    if (!args.booleans.has('no-liveness')) {
      if (!quiet) io.stderr(`Checking temporal properties under weak fairness`);
      liveness = checkLiveness(model, {
        ...(maxStates !== undefined ? { maxStates } : {}),
        ...(timeLimitSeconds !== undefined ? { timeLimitSeconds } : {}),
      });
    }
  }
  let tracePath: string | undefined;
  let traceLength: number | undefined;
  if (liveness?.result === 'violation') {
    const identity = { model: definition.name, params, bug };
    const built = buildLassoTrace(model, identity, liveness.lasso!, liveness.property!);
    const trace = definition.modulePath ? { ...built, module: definition.modulePath } : built;
    const name = `${definition.name}${bug ? `-${bug}` : ''}-${liveness.property}`;
    tracePath = args.values['out'] ?? join('shardkv-out', `${name}.trace.json`);
    const itfPath = tracePath.replace(/(\.trace)?\.json$/, '') + '.itf.json';
    writeTraceFile(tracePath, trace);
    writeTraceFile(itfPath, lassoToItf(trace));
    traceLength = trace.steps.length;
    if (!json) {
      io.stdout(`Temporal property ${liveness.property} is violated by a lasso:`);
      io.stdout(formatLasso(trace));
      io.stdout(`Trace written to ${tracePath} (ITF: ${itfPath})`);
    }
  }
  if (search.result === 'violation' && search.path && search.invariant) {
    const trace = buildTrace(
      model,
      { model: definition.name, params, bug },
      search.path,
      search.invariant,
    );
    const bugPart = bug ? `-${bug}` : '';
    tracePath =
      args.values['out'] ??
      join('shardkv-out', `${definition.name}${bugPart}-${search.invariant}.trace.json`);
    const itfPath = tracePath.replace(/(\.trace)?\.json$/, '') + '.itf.json';
    const module = definition.modulePath;
    writeTraceFile(tracePath, module ? { ...trace, module } : trace);
    writeTraceFile(itfPath, traceToItf(trace));
    traceLength = trace.steps.length;
    if (!json) {
      io.stdout(`Invariant ${search.invariant} is violated after ${traceLength} steps:`);
      io.stdout(formatTrace(trace));
      io.stdout(`Trace written to ${tracePath} (ITF: ${itfPath})`);
    }
  }
  const statesPerSecond = Math.round(search.statesGenerated / Math.max(search.seconds, 1e-6));
  const livenessFailed = liveness?.result === 'violation';
  if (json) {
    io.stdout(
      JSON.stringify({
        ok: search.result !== 'violation' && !livenessFailed,
        ...(search.result === 'violation'
          ? { error: `invariant ${search.invariant} is violated` }
          : {}),
        ...(livenessFailed
          ? {
              error: `temporal property ${liveness!.property} is violated`,
              property: liveness!.property,
              loop: liveness!.lasso!.loop,
            }
          : {}),
        model: definition.name,
        params,
        ...(bug ? { bug } : {}),
        strategy,
        workers,
        ...(strategy === 'random' ? { seed } : {}),
        result: livenessFailed ? 'violation' : search.result,
        ...(search.invariant ? { invariant: search.invariant } : {}),
        ...(search.stoppedBy ? { stoppedBy: search.stoppedBy } : {}),
        exhaustive: search.exhaustive,
        invariantsChecked: model.invariants.map((invariant) => invariant.name),
        distinctStates: search.distinctStates,
        statesGenerated: search.statesGenerated,
        depth: search.depth,
        seconds: round(search.seconds),
        statesPerSecond,
        ...(tracePath !== undefined ? { trace: tracePath, traceLength } : {}),
        ...(liveness ? { liveness: livenessSummary(liveness) } : {}),
      }),
    );
  } else {
    io.stdout(summaryLine(search, statesPerSecond));
    if (liveness) io.stdout(livenessLine(liveness));
  }
  return search.result === 'violation' || livenessFailed ? exitProblem : exitOk;
}

/** Writes a trace file; a path that cannot be written is the user's to fix (exit 2). */
function writeTraceFile(path: string, content: unknown): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(content, null, 1) + '\n');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`cannot write the counterexample to ${path}: ${code}`);
  }
}

function summaryLine(search: SearchResult, statesPerSecond: number): string {
  const verdict =
    search.result === 'violation'
      ? `VIOLATION of ${search.invariant}`
      : search.result === 'incomplete'
        ? `INCOMPLETE: stopped by ${search.stoppedBy} before the bounded space was exhausted; ` +
          'no violation so far'
        : search.exhaustive
          ? 'OK: no invariant is violated within the bounds'
          : 'OK: no violation in the sampled behaviours (random simulation is not exhaustive)';
  return [
    verdict,
    `${search.distinctStates} distinct states, ${search.statesGenerated} generated, depth ${search.depth},` +
      ` ${round(search.seconds)} s (${statesPerSecond} states/s)`,
  ].join('\n');
}

/** The liveness pass in the JSON summary: verdict, property, lasso loop, graph size. */
function livenessSummary(liveness: LivenessResult) {
  return {
    result: liveness.result,
    properties: liveness.properties,
    ...(liveness.property ? { property: liveness.property, loop: liveness.lasso!.loop } : {}),
    ...(liveness.stoppedBy ? { stoppedBy: liveness.stoppedBy } : {}),
    distinctStates: liveness.distinctStates,
    edges: liveness.edges,
    graphBytes: liveness.graphBytes,
    seconds: round(liveness.seconds),
  };
}

function livenessLine(liveness: LivenessResult): string {
  const verdict =
    liveness.result === 'violation'
      ? `LIVENESS VIOLATION of ${liveness.property}`
      : liveness.result === 'incomplete'
        ? `LIVENESS INCOMPLETE: stopped by ${liveness.stoppedBy}`
        : `LIVENESS OK under weak fairness: ${liveness.properties.join(', ')}`;
  const mebibytes = Math.round(liveness.graphBytes / 2 ** 20);
  const graph = `${liveness.distinctStates} states, ${liveness.edges} edges, ${mebibytes} MiB`;
  return `${verdict} (${graph})`;
}

export function formatProgress(progress: Progress): string {
  const heapMiB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  const rate = Math.round(progress.statesGenerated / Math.max(progress.seconds, 1e-6));
  return (
    `progress: ${progress.statesGenerated} generated, ${progress.distinctStates} distinct, ` +
    `queue ${progress.queue}, depth ${progress.depth}, ${rate} states/s, heap ${heapMiB} MiB, ` +
    `${round(progress.seconds)} s`
  );
}

export function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
