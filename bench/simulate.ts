/**
 * `npm run bench -- simulate`: how fast the simulator runs the default cluster (a controller
 * group of 3, groups 100..102 of 3, 10 shards, 10 clients, the shell's default timeouts):
 * one simulated minute per fault mode, in simulated seconds per wall second (issue 12's
 * target: a simulated minute in at most 3 s). One run each; the machine is shared, so
 * compare modes within one run.
 */
import { simulationOptions, type FaultMode } from '../verify/simulate/options.js';
import { runSimulation } from '../verify/simulate/run.js';
import { shellRuntime } from '../verify/simulate/shell-runtime.js';
import type { BenchSection } from './sections.js';

const simulatedMinuteMs = 60_000;
const benchSeed = 1;

async function benchMode(faults: FaultMode): Promise<void> {
  const options = simulationOptions(benchSeed, {
    faults, steps: Number.MAX_SAFE_INTEGER, activeTimeMsMax: simulatedMinuteMs,
  });
  const started = performance.now();
  const result = await runSimulation(options, shellRuntime);
  const wallSeconds = (performance.now() - started) / 1000;
  const simulatedSeconds = result.simulatedMs / 1000;
  const operations = result.operations.ok + result.operations.unknown;
  console.log(
    `faults ${faults.padEnd(5)}  ${simulatedSeconds.toFixed(1).padStart(5)} s simulated ` +
      `(a minute active, then quiet) in ${wallSeconds.toFixed(2).padStart(6)} s wall: ` +
      `${(simulatedSeconds / wallSeconds).toFixed(1).padStart(5)} simulated s per wall s; ` +
      `${result.events} events (${Math.round(result.events / wallSeconds)}/s), ` +
      `${operations} operations (lincheck ${result.lincheckSeconds.toFixed(2)} s), ` +
      `${result.configurations.published} configurations; ` +
      `${result.failure === null ? 'ok' : 'FAILED ' + result.failure.invariant}`,
  );
}

export const simulateBench: BenchSection = {
  name: 'simulate',
  description: 'the simulated cluster: simulated seconds per wall second (seed 1)',
  async run() {
    for (const faults of ['none', 'all'] as const) await benchMode(faults);
  },
};
