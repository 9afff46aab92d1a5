/**
 * `shardkv replay FILE --runtime [--without-bug]`: the trace's schedule driven through the
 * runtime's real nodes (impl/sim/replay). Exit 1 when the violation reproduces in the runtime
 * or the runtime cannot follow a step, 0 when it ran the whole schedule clean.
 */
import type { ModelDefinition } from '../checker/model.js';
import type { Trace } from '../checker/trace.js';
import {
  replayInRuntime, type RuntimeReplayOutcome, type RuntimeStepReport,
} from '../verify/replay/runtime-replay.js';
import { exitOk, exitProblem, type Io } from './io.js';

function stepLine(report: RuntimeStepReport): string {
  const verdict = report.agrees ? 'runtime agrees' : 'runtime differs';
  const note = report.note === undefined ? '' : `: ${report.note}`;
  return `Step ${report.step}: ${report.label}  [${verdict}${note}]`;
}

function verdictLine(outcome: RuntimeReplayOutcome, bug: string | null): string {
  const code = bug === null ? 'the code' : `the code with bug ${bug}`;
  switch (outcome.result) {
    case 'reproduced':
      return `Reproduced: ${outcome.invariant} violated at step ${outcome.step} in the ` +
        `runtime (${code})`;
    case 'clean':
      return `The runtime ran the schedule clean: ${outcome.steps.length} steps, every ` +
        `evaluated invariant holds (${code})`;
    case 'diverged':
      return `Diverged: the runtime cannot follow step ${outcome.step}: ${outcome.reason}`;
  }
}

export async function replayRuntimeCommand(
  definition: ModelDefinition,
  trace: Trace,
  flags: { readonly withoutBug: boolean; readonly json: boolean },
  io: Io,
): Promise<number> {
  const outcome = await replayInRuntime(definition, trace, { withoutBug: flags.withoutBug });
  const bug = flags.withoutBug ? null : trace.bug;
  const verdict = verdictLine(outcome, bug);
  const ok = outcome.result === 'clean';
  if (flags.json) {
    const { steps, ...summary } = outcome;
    io.stdout(JSON.stringify({
      ok, runtime: true, bug, ...summary, steps,
      ...(ok ? {} : { error: verdict }),
    }));
  } else {
    for (const report of outcome.steps) io.stdout(stepLine(report));
    io.stdout(verdict);
  }
  return ok ? exitOk : exitProblem;
}
