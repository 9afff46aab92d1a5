/** `shardkv models` and `shardkv bugs`: what can be checked, and the known bugs. */
import { UsageError } from '../checker/params.js';
import { describeParams } from '../checker/params.js';
import { modelDefinitions } from '../models/registry.js';
import { helpText, parseArgs, type FlagSpec } from './args.js';
import { exitOk, type Io } from './io.js';

const flags: readonly FlagSpec[] = [
  { name: 'json', kind: 'boolean', description: 'print the list as JSON, as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const modelsHelp = helpText(
  'shardkv models [--json]',
  'Lists the models, their bounds (with defaults) and invariants.\n' +
    'JSON: {"ok":true,"models":[{"name","description","params","invariants","bugs"}]}.',
  flags,
);
export const bugsHelp = helpText(
  'shardkv bugs [--json]',
  'Lists the known-bug mutations the checker must find.\n' +
    'JSON (an array, as CONTRACT fixes it): [{"name","model","description","breaks","bounds"?}].',
  flags,
);

function parse(argv: readonly string[]) {
  const args = parseArgs(argv, flags);
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  return args;
}

export function modelsCommand(argv: readonly string[], io: Io): number {
  const args = parse(argv);
  if (args.booleans.has('help')) {
    io.stdout(modelsHelp);
    return exitOk;
  }
  const models = modelDefinitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    params: definition.params.map((param) => ({
      name: param.name,
      description: param.description,
      default: param.default,
      kind: param.kind,
      ...(param.min !== undefined ? { min: param.min } : {}),
      ...(param.max !== undefined ? { max: param.max } : {}),
      ...(param.choices ? { choices: param.choices } : {}),
    })),
    invariants: definition.invariants,
    bugs: definition.bugs.map((bug) => bug.name),
  }));
  if (args.booleans.has('json')) {
    io.stdout(JSON.stringify({ ok: true, models }));
    return exitOk;
  }
  for (const model of models) {
    io.stdout(`${model.name}: ${model.description}`);
    for (const param of model.params) {
      io.stdout(`  --${param.name} (default ${param.default}): ${param.description}`);
    }
    io.stdout(`  invariants: ${model.invariants.join(', ')}`);
    if (model.bugs.length > 0) io.stdout(`  bugs: ${model.bugs.join(', ')}`);
  }
  return exitOk;
}

export function bugsCommand(argv: readonly string[], io: Io): number {
  const args = parse(argv);
  if (args.booleans.has('help')) {
    io.stdout(bugsHelp);
    return exitOk;
  }
  const bugs = modelDefinitions.flatMap((definition) =>
    definition.bugs.map((bug) => ({
      name: bug.name,
      model: definition.name,
      description: bug.description,
      breaks: bug.breaks,
      ...(bug.bounds ? { bounds: bug.bounds } : {}),
    })),
  );
  if (args.booleans.has('json')) {
    io.stdout(JSON.stringify(bugs));
    return exitOk;
  }
  for (const bug of bugs) {
    const bounds = bug.bounds ? ` [checked with ${describeParams(bug.bounds)}]` : '';
    io.stdout(
      `${bug.name} (${bug.model}): ${bug.description}; breaks ${bug.breaks.join(' or ')}${bounds}`,
    );
  }
  if (bugs.length === 0) io.stdout('no known bugs are registered yet');
  return exitOk;
}
