/** `shardkv replay FILE`: re-executes a trace through spec/ (exit 1 violation, 2 invalid). */
import { UsageError } from '../checker/params.js';
import { diagramSteps, renderMermaid, type DiagramStep } from '../checker/diagram.js';
import { parseTrace, replayTrace, type ReplayOutcome } from '../checker/replay.js';
import { renderTraceHtml } from '../checker/trace-html.js';
import { loadModelModule } from '../checker/load-model.js';
import { findModel } from '../models/registry.js';
import type { ModelDefinition } from '../checker/model.js';
import { rewriteTrace } from '../checker/rewrite-trace.js';
import type { Trace } from '../checker/trace.js';
import { writeTraceFiles } from './trace-files.js';
import { helpText, parseArgs, type FlagSpec } from './args.js';
import { replayRuntimeCommand } from './replay-runtime.js';
import { mebibyte, readTextFile, writeTextFile } from './input.js';
import { exitOk, exitProblem, exitUsage, type Io } from './io.js';

/** The largest trace file replay reads (the kept counterexamples are under 100 KiB). */
export const traceLimitBytes = 64 * mebibyte;

const flags: readonly FlagSpec[] = [
  { name: 'mermaid', kind: 'boolean', description: 'print the trace as a Mermaid sequence diagram' },
  {
    name: 'html',
    kind: 'value',
    valueName: 'OUT',
    description: 'write a self-contained page: the diagram and each step\'s changes',
  },
  {
    name: 'rewrite',
    kind: 'boolean',
    description: 'recompute labels, indexes and states of kept traces from the spec (FILE...)',
  },
  {
    name: 'runtime',
    kind: 'boolean',
    description: 'drive the runtime\'s real nodes along the trace (the trace\'s bug switched on)',
  },
  {
    name: 'without-bug',
    kind: 'boolean',
    description: 'with --runtime: run the same schedule on the correct code',
  },
  { name: 'json', kind: 'boolean', description: 'print one JSON object as the last line' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const replayHelp = helpText(
  'shardkv replay FILE [--mermaid | --html OUT | --runtime [--without-bug]] [--json]\n' +
    '       shardkv replay --rewrite FILE...',
  'Re-executes a trace written by `shardkv check` through the spec.\n' +
    'Exit: 0 every step valid and no invariant fails, 1 the violation reproduces,\n' +
    '2 the file is unreadable, larger than 64 MiB or not a valid trace, or a step is not\n' +
    'enabled in its state or does not produce the recorded state (step and field printed).\n' +
    'With --mermaid or --html the valid trace is drawn (exit 0) and the verdict goes to stderr.\n' +
    'With --rewrite each FILE keeps its actions; its labels, action indexes, changed fields\n' +
    'and states (and the ITF file beside it) are recomputed through the spec, and it must\n' +
    'replay to the verdict it names (else nothing is written, exit 2).\n' +
    'With --runtime the schedule drives the runtime\'s real nodes (simulated network, disk and\n' +
    'timers): exit 1 when the violation reproduces there or the runtime cannot follow a step\n' +
    '(step and field printed), 0 when it runs clean; --without-bug runs the correct code.',
  flags,
);

export async function replayCommand(argv: readonly string[], io: Io): Promise<number> {
  const args = parseArgs(argv, flags);
  if (args.booleans.has('help')) {
    io.stdout(replayHelp);
    return exitOk;
  }
  if (args.booleans.has('rewrite')) return rewriteCommand(args.positionals, args.booleans, io);
  const [file, ...extra] = args.positionals;
  if (file === undefined) throw new UsageError('replay needs a trace FILE');
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const trace = parseTrace(readTextFile(file, traceLimitBytes));
  const definition = await traceDefinition(trace);
  const runtime = args.booleans.has('runtime');
  const withoutBug = args.booleans.has('without-bug');
  if (withoutBug && !runtime) throw new UsageError('--without-bug needs --runtime');
  if (runtime) {
    if (args.booleans.has('mermaid') || args.values['html'] !== undefined) {
      throw new UsageError('give --runtime or a picture (--mermaid, --html), not both');
    }
    const json = args.booleans.has('json');
    return replayRuntimeCommand(definition, trace, { withoutBug, json }, io);
  }
  let drawn: DiagramStep[] = [];
  let witnessAt: ((step: number, invariant: string) => string | undefined) | undefined;
  const outcome = replayTrace(definition, trace, (model, states, actions) => {
    drawn = diagramSteps(model, states, actions);
    witnessAt = (step, invariant) =>
      model.invariants.find((candidate) => candidate.name === invariant)?.explain?.(states[step]);
  });
  const witness =
    outcome.result === 'violation' && outcome.loop === undefined
      ? witnessAt?.(outcome.step, outcome.invariant)
      : undefined;
  const json = args.booleans.has('json');
  const mermaid = args.booleans.has('mermaid');
  const htmlFile = args.values['html'];
  if (mermaid && htmlFile !== undefined) throw new UsageError('give --mermaid or --html, not both');
  if (json && mermaid) throw new UsageError('--mermaid prints a diagram, not JSON');
  if ((mermaid || htmlFile !== undefined) && outcome.result !== 'invalid') {
    const verdict = verdictLine(outcome);
    const why = witness && outcome.result === 'violation'
      ? `Why ${outcome.invariant} fails: ${witness}` : undefined;
    if (mermaid) io.stdout(renderMermaid(drawn).trimEnd());
    if (htmlFile !== undefined) {
      writeTextFile(htmlFile, renderTraceHtml(trace, drawn, verdict, why));
    }
    if (json) io.stdout(JSON.stringify({ ok: true, result: outcome.result, html: htmlFile }));
    else io.stderr(why === undefined ? verdict : `${verdict}\n${why}`);
    return exitOk;
  }
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
            ...(witness ? { witness } : {}),
            error: `invariant ${outcome.invariant} is violated at step ${outcome.step}`,
          }),
        );
      } else {
        io.stdout(verdictLine(outcome));
        if (witness) io.stdout(`Why ${outcome.invariant} fails: ${witness}`);
      }
      return exitProblem;
    case 'ok':
      if (json) io.stdout(JSON.stringify({ ok: true, result: 'ok', steps: outcome.steps }));
      else io.stdout(verdictLine(outcome));
      return exitOk;
  }
}

async function traceDefinition(trace: Trace): Promise<ModelDefinition> {
  const module = typeof trace.module === 'string' ? trace.module : undefined;
  const definition =
    findModel(trace.model) ?? (module ? await loadModelModule(module) : undefined);
  if (!definition) throw new UsageError(`the trace names an unknown model '${trace.model}'`);
  return definition;
}

/** `replay --rewrite FILE...`: every file rewritten from the spec, or the first error. */
async function rewriteCommand(
  files: readonly string[],
  booleans: ReadonlySet<string>,
  io: Io,
): Promise<number> {
  if (files.length === 0) throw new UsageError('replay --rewrite needs a trace FILE');
  for (const other of ['mermaid', 'json']) {
    if (booleans.has(other)) throw new UsageError(`--rewrite writes files; drop --${other}`);
  }
  for (const file of files) {
    const trace = parseTrace(readTextFile(file, traceLimitBytes));
    const definition = await traceDefinition(trace);
    let rewritten: Trace;
    try {
      rewritten = rewriteTrace(definition, trace);
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(`${file}: ${error.message}`);
      throw error;
    }
    writeTraceFiles(file, rewritten);
    const verdict = rewritten.property ?? rewritten.invariant ?? 'no violation';
    io.stdout(`${file}: rewritten, ${rewritten.steps.length} steps, replays to ${verdict}`);
  }
  return exitOk;
}

function verdictLine(outcome: Exclude<ReplayOutcome, { result: 'invalid' }>): string {
  if (outcome.result === 'ok') {
    return `Valid: all ${outcome.steps} steps are enabled and no invariant is violated`;
  }
  if (outcome.loop !== undefined) {
    return `Reproduced: temporal property ${outcome.invariant} is violated by a lasso of ` +
      `${outcome.steps} steps (the cycle starts at state ${outcome.loop})`;
  }
  return `Reproduced: invariant ${outcome.invariant} is violated ` +
    `at step ${outcome.step} of ${outcome.steps}`;
}
