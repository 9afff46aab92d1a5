/**
 * `shardkv merge FILE...`: combines the JSON summaries of a swarm split across processes
 * (`check MODEL --strategy random --seed S --seeds N --json`, one file each, the summary on
 * its last line). All must check the same model, bounds and bug; the merged summary sums the
 * states generated and seeds run and keeps the violation of the least seed with its trace,
 * so it does not depend on how the seed range was split. Exit 1 when any found one.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../checker/params.js';
import { helpText, parseArgs } from './args.js';
import { exitOk, exitProblem, type Io } from './io.js';

interface SwarmPart {
  readonly model: string;
  readonly params: unknown;
  readonly bug?: string;
  readonly strategy: string;
  readonly result: string;
  readonly invariant?: string;
  readonly seed: number;
  readonly statesGenerated: number;
  readonly distinctStates: number;
  readonly swarm?: { firstSeed: number; seeds: number; seedsRun: number; violatingSeed?: number };
  readonly trace?: string;
  readonly traceLength?: number;
}

export function mergeHelp(): string {
  return helpText(
    'shardkv merge FILE...',
    'Combines the --json summaries of swarm checks (--strategy random --seeds N), one per\n' +
      'file; the violation of the least seed wins. Exit: 0 none, 1 a violation, 2 bad input.',
    [{ name: 'help', kind: 'boolean', description: 'show this help' }],
  );
}

function readPart(path: string): SwarmPart {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${path}`);
  }
  const last = text.trimEnd().split('\n').at(-1) ?? '';
  let part: SwarmPart;
  try {
    part = JSON.parse(last) as SwarmPart;
  } catch {
    throw new UsageError(`${path}: the last line is not a JSON summary (check ... --json)`);
  }
  if (part.strategy !== 'random' || typeof part.statesGenerated !== 'number') {
    throw new UsageError(`${path}: not the summary of a random (swarm) check`);
  }
  return part;
}

/** The seeds a part covered: its swarm range, or its one seed. */
function rangeOf(part: SwarmPart): { firstSeed: number; seeds: number; seedsRun: number } {
  return part.swarm ?? { firstSeed: part.seed, seeds: 1, seedsRun: 1 };
}

export async function mergeCommand(argv: readonly string[], io: Io): Promise<number> {
  const args = parseArgs(argv, [{ name: 'help', kind: 'boolean', description: '' }]);
  if (args.booleans.has('help')) {
    io.stdout(mergeHelp());
    return exitOk;
  }
  if (args.positionals.length === 0) throw new UsageError('merge needs FILE... (see --help)');
  const parts = args.positionals.map(readPart);
  const [first] = parts;
  const identity = (part: SwarmPart) =>
    JSON.stringify([part.model, part.params, part.bug ?? null]);
  for (const [index, part] of parts.entries()) {
    if (identity(part) !== identity(first!)) {
      throw new UsageError(`${args.positionals[index]} checks another model, bounds or bug`);
    }
  }
  const violations = parts
    .filter((part) => part.result === 'violation')
    .sort((a, b) => a.seed - b.seed);
  const winner = violations[0];
  const ranges = parts.map(rangeOf).sort((a, b) => a.firstSeed - b.firstSeed);
  io.stdout(
    JSON.stringify({
      ok: winner === undefined,
      ...(winner ? { error: `invariant ${winner.invariant} is violated` } : {}),
      model: first!.model,
      params: first!.params,
      ...(first!.bug ? { bug: first!.bug } : {}),
      strategy: 'random',
      result: winner ? 'violation' : parts.every((p) => p.result === 'ok') ? 'ok' : 'incomplete',
      ...(winner ? { invariant: winner.invariant, seed: winner.seed } : {}),
      parts: parts.length,
      seeds: ranges.map((range) => [range.firstSeed, range.firstSeed + range.seeds - 1]),
      seedsRun: ranges.reduce((sum, range) => sum + range.seedsRun, 0),
      statesGenerated: parts.reduce((sum, part) => sum + part.statesGenerated, 0),
      distinctStatesMaxPerSeed: Math.max(...parts.map((part) => part.distinctStates)),
      ...(winner?.trace ? { trace: winner.trace, traceLength: winner.traceLength } : {}),
    }),
  );
  return winner ? exitProblem : exitOk;
}
