/**
 * `shardkv mbt MODEL [bounds...] [--walks N --depth D --seed S [--guided] | --paths N]
 * [--bug NAME]`:
 * model-based testing of the runtime (verify/mbt). Exit 0 the runtime followed every
 * schedule, 1 it diverged (the shrunk trace is written for `replay --runtime`), 2 usage.
 */
import type { ModelDefinition } from '../checker/model.js';
import { resolveParams, UsageError } from '../checker/params.js';
import { findModel } from '../models/registry.js';
import { runMbt, undrivenActions, type MbtTarget } from '../verify/mbt/mbt.js';
import { drivableBy, randomWalks, shortestPaths } from '../verify/mbt/schedules.js';
import { runtimeModels } from '../verify/replay/runtime-replay.js';
import { helpText, integerFlag, parseArgs, type FlagSpec } from './args.js';
import { modelFlags } from './check.js';
import { writeTraceFiles } from './trace-files.js';
import { exitOk, exitProblem, type Io } from './io.js';

const commonFlags: readonly FlagSpec[] = [
  {
    name: 'bug', kind: 'value', valueName: 'NAME',
    description: 'switch a catalog bug on in the model and the runtime (see `shardkv bugs`); ' +
      'applies its documented bounds',
  },
  { name: 'walks', kind: 'value', valueName: 'N', description: 'random walks (default 100)' },
  { name: 'depth', kind: 'value', valueName: 'D', description: 'steps per walk at most (default 30)' },
  { name: 'seed', kind: 'value', valueName: 'S', description: 'seed of the walks (default 1)' },
  {
    name: 'guided', kind: 'boolean',
    description: 'walks weight action types per walk and prefer states no walk reached yet',
  },
  {
    name: 'paths', kind: 'value', valueName: 'N',
    description: 'instead of walks: the shortest paths to the first N states of a BFS',
  },
  {
    name: 'out', kind: 'value', valueName: 'FILE',
    description: 'where a divergence trace goes (default mbt-MODEL.trace.json)',
  },
  { name: 'quiet', kind: 'boolean', description: 'no progress lines on stderr' },
  { name: 'json', kind: 'boolean', description: 'print one JSON summary object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export function mbtHelp(definition?: ModelDefinition): string {
  return helpText(
    `shardkv mbt ${definition?.name ?? runtimeModels.join('|')} [bounds...] ` +
      '[--walks N --depth D --seed S [--guided] | --paths N] [--bug NAME] [--out FILE] [--json]',
    'Drives the runtime\'s real node code (held network, name-fired timers, memory disks, a\n' +
      'still clock) along schedules the model generates, one action at a time; after every\n' +
      'step compares the runtime\'s state with the spec\'s and evaluates the invariants on it.\n' +
      'A divergence is shrunk to a short trace that `shardkv replay FILE --runtime` reproduces.\n' +
      'Exit: 0 the runtime followed every schedule, 1 it diverged, 2 usage error.',
    definition === undefined ? commonFlags : [...modelFlags(definition), ...commonFlags],
  );
}

/** Progress lines at most this often. */
const progressIntervalMs = 1_000;

export async function mbtCommand(argv: readonly string[], io: Io): Promise<number> {
  const name = argv[0];
  if (name === undefined || name.startsWith('--')) {
    if (argv.includes('--help')) {
      io.stdout(mbtHelp());
      return exitOk;
    }
    throw new UsageError(`mbt needs a MODEL: ${runtimeModels.join(', ')}`);
  }
  const definition = findModel(name);
  if (definition === undefined || !runtimeModels.includes(name)) {
    throw new UsageError(`mbt drives ${runtimeModels.join(', ')}, not '${name}'`);
  }
  const args = parseArgs(argv.slice(1), [...modelFlags(definition), ...commonFlags]);
  if (args.booleans.has('help')) {
    io.stdout(mbtHelp(definition));
    return exitOk;
  }
  if (args.positionals.length > 0) {
    throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  }
  const given: Record<string, string> = {};
  for (const param of definition.params) {
    if (param.name in args.values) given[param.name] = args.values[param.name]!;
    if (args.booleans.has(param.name)) given[param.name] = 'true';
  }
  const bug = args.values['bug'];
  const params = resolveParams(definition, bug, given);
  const preset = params['preset'];
  if (typeof preset === 'string' && preset.startsWith('liveness')) {
    // The liveness presets explore lassos under fairness: walks have no lasso to fail on.
    const subject = bug === undefined ? `--preset ${preset} is`
      : `${bug} is checked with --preset ${preset},`;
    throw new UsageError(`${subject} a liveness check: mbt evaluates invariants after each ` +
      `step and cannot show a lasso (run \`shardkv check ${name} --preset ${preset}\`)`);
  }
  const paths = integerFlag(args, 'paths', 1);
  const guided = args.booleans.has('guided');
  if (paths !== undefined &&
    (guided || ['walks', 'depth', 'seed'].some((flag) => flag in args.values))) {
    throw new UsageError('--paths replaces --walks, --depth, --seed and --guided: give one or ' +
      'the other');
  }
  const target: MbtTarget = {
    name, params, model: definition.create(params, bug), ...(bug !== undefined ? { bug } : {}),
  };
  const adapter = undrivenActions(target);
  const undriven = adapter.undriven;
  const drivable = drivableBy(adapter);
  const schedules = paths !== undefined
    ? shortestPaths(target.model, drivable, paths)
    : randomWalks(target.model, drivable, {
      walks: integerFlag(args, 'walks', 1) ?? 100,
      depth: integerFlag(args, 'depth', 1) ?? 30,
      seed: integerFlag(args, 'seed', 0, 2 ** 32 - 1) ?? 1,
      guided,
    });
  const json = args.booleans.has('json');
  for (const [type, why] of Object.entries(undriven)) {
    io.stdout(`Not driven: ${type}: ${why}`);
  }
  for (const when of adapter.refusals ?? []) io.stdout(`Not driven: ${when}`);
  const started = Date.now();
  let shown = started;
  const outcome = await runMbt(target, schedules, (count, steps) => {
    const now = Date.now();
    if (args.booleans.has('quiet') || now - shown < progressIntervalMs) return;
    shown = now;
    io.stderr(`mbt ${name}: ${count} schedules, ${steps} steps through the runtime`);
  });
  const seconds = (Date.now() - started) / 1000;
  const rate = Math.round(outcome.steps / Math.max(seconds, 1e-3) * 60);
  const summary = { model: name, ...(bug !== undefined ? { bug } : {}), params,
    schedules: outcome.schedules, steps: outcome.steps, seconds, stepsPerMinute: rate, undriven,
    refusals: adapter.refusals ?? [] };
  if (outcome.result === 'clean') {
    io.stdout(`OK: ${outcome.schedules} schedules, ${outcome.steps} steps through the runtime ` +
      `in ${seconds.toFixed(1)} s (${rate} steps/min): after every step the runtime held the ` +
      'spec\'s state and every evaluated invariant held');
    if (json) io.stdout(JSON.stringify({ ok: true, ...summary }));
    return exitOk;
  }
  const out = args.values['out'] ?? `mbt-${name}${bug !== undefined ? `-${bug}` : ''}.trace.json`;
  writeTraceFiles(out, outcome.trace);
  // The steps by label; the file holds every state (`shardkv replay FILE` prints them).
  for (const step of outcome.trace.steps) io.stdout(`Step ${step.step}: ${step.label}`);
  const line = `Diverged: schedule ${outcome.schedules} failed at step ${outcome.found}; ` +
    `shrunk to ${outcome.trace.steps.length} steps, the runtime fails step ${outcome.step}: ` +
    `${outcome.reason}`;
  io.stdout(line);
  io.stdout(`Trace written to ${out} (reproduce: shardkv replay ${out} --runtime)`);
  if (json) {
    io.stdout(JSON.stringify({ ok: false, ...summary, error: line, trace: out,
      step: outcome.step }));
  }
  return exitProblem;
}
