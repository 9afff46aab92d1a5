/** `shardkv replay FILE`: re-executes a trace through spec/ (exit 1 violation, 2 invalid). */
import { UsageError } from '../checker/params.js';
import { parseTrace, replayTrace } from '../checker/replay.js';
import { loadModelModule } from '../checker/load-model.js';
import { findModel } from '../spec/registry.js';
import { helpText, parseArgs, type FlagSpec } from './args.js';
import { mebibyte, readTextFile } from './input.js';
import { exitOk, exitProblem, exitUsage, type Io } from './io.js';

/** The largest trace file replay reads (the kept counterexamples are under 100 KiB). */
export const traceLimitBytes = 64 * mebibyte;

const flags: readonly FlagSpec[] = [
  { name: 'json', kind: 'boolean', description: 'print one JSON object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const replayHelp = helpText(
  'shardkv replay FILE [--json]',
  'Re-executes a trace written by `shardkv check` through the spec.\n' +
    'Exit: 0 every step valid and no invariant fails, 1 the violation reproduces,\n' +
    '2 the file is unreadable, larger than 64 MiB or not a valid trace, or a step is not\n' +
    'enabled in its state or does not produce the recorded state (step and field printed).',
  flags,
);

export async function replayCommand(argv: readonly string[], io: Io): Promise<number> {
  const args = parseArgs(argv, flags);
  if (args.booleans.has('help')) {
    io.stdout(replayHelp);
    return exitOk;
  }
  const [file, ...extra] = args.positionals;
  if (file === undefined) throw new UsageError('replay needs a trace FILE');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const trace = parseTrace(readTextFile(file, traceLimitBytes));
  const module = typeof trace.module === 'string' ? trace.module : undefined;
  const definition =
    findModel(trace.model) ?? (module ? await loadModelModule(module) : undefined);
  if (!definition) throw new UsageError(`the trace names an unknown model '${trace.model}'`);
  const outcome = replayTrace(definition, trace);
  const json = args.booleans.has('json');
  switch (outcome.result) {
    case 'invalid': {
      const message = `${file}: step ${outcome.step}: ${outcome.reason}`;
      io.stderr(message);
      if (json)
        io.stdout(
          JSON.stringify({ ok: false, result: 'invalid', step: outcome.step, error: message }),
        );
      return exitUsage;
    }
    case 'violation':
      if (json) {
        io.stdout(
          JSON.stringify({
            ok: false,
            result: 'violation',
            invariant: outcome.invariant,
            step: outcome.step,
            steps: outcome.steps,
            ...(outcome.loop !== undefined ? { loop: outcome.loop } : {}),
            error: `invariant ${outcome.invariant} is violated at step ${outcome.step}`,
          }),
        );
      } else if (outcome.loop !== undefined) {
        io.stdout(
          `Reproduced: temporal property ${outcome.invariant} is violated by a lasso of ` +
            `${outcome.steps} steps (the cycle starts at state ${outcome.loop})`,
        );
      } else {
        io.stdout(
          `Reproduced: invariant ${outcome.invariant} is violated ` +
            `at step ${outcome.step} of ${outcome.steps}`,
        );
      }
      return exitProblem;
    case 'ok':
      if (json) io.stdout(JSON.stringify({ ok: true, result: 'ok', steps: outcome.steps }));
      else io.stdout(`Valid: all ${outcome.steps} steps are enabled and no invariant is violated`);
      return exitOk;
  }
}
