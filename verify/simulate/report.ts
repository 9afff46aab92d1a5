/**
 * How `shardkv simulate` words a run: one summary line per seed, the failure report (the
 * invariant, the seed, the last events and the exact command that reruns it) and the JSON
 * record of a run. Plain functions of a result, so tests can read exactly what users read.
 */
import { describeDiskDamage } from './disk-damage.js';
import { defaultOptions, type SimulationOptions } from './options.js';
import type { SimulationResult } from './run.js';

/** The command that reruns one seed with the same options. */
export function rerunCommand(options: SimulationOptions): string {
  const parts = ['shardkv simulate', `--seed ${options.seed}`];
  if (options.steps !== defaultOptions.steps) parts.push(`--steps ${options.steps}`);
  if (options.faults !== defaultOptions.faults) parts.push(`--faults ${options.faults}`);
  if (options.clients !== defaultOptions.clients) parts.push(`--clients ${options.clients}`);
  if (options.valueBytes !== defaultOptions.valueBytes) {
    parts.push(`--value-bytes ${options.valueBytes}`);
  }
  if (options.bug !== null) parts.push(`--bug ${options.bug}`);
  return parts.join(' ');
}

export function summaryLine(result: SimulationResult): string {
  const { operations, configurations, faults } = result;
  const verdict = result.failure === null ? 'ok' : `FAILED ${result.failure.invariant}`;
  return `seed ${result.seed}: ${verdict}; ${seconds(result.simulatedMs)} s simulated, ` +
    `${result.events} events, ${operations.ok + operations.unknown} operations ` +
    `(${operations.unknown} unknown), ${configurations.published} configurations published ` +
    `(${configurations.recorded} recorded), faults: ${faults.crashes} crashes, ` +
    `${faults.partitions} partitions, ${faults.unreliablePeriods} unreliable periods; ` +
    diskDamageText(result) + `digest ${result.digest}`;
}

/** `disk damage: SERVER KIND: RESULT; ` when the seed damaged a disk, else nothing. */
function diskDamageText(result: SimulationResult): string {
  if (result.diskDamage.length === 0) return '';
  return `disk damage: ${result.diskDamage.map(describeDiskDamage).join(', ')}; `;
}

/** The failure report: empty for a passing run. */
export function failureLines(result: SimulationResult, options: SimulationOptions): string[] {
  const failure = result.failure;
  if (failure === null) return [];
  return [
    `seed ${result.seed} violates ${failure.invariant} at ${seconds(failure.timeMs)} s ` +
      `simulated: ${failure.detail}`,
    ...failure.explanation,
    `last events, frames and timers left out (time ms, node, what):`,
    ...failure.lastEvents.map((line) => `  ${line}`),
    `last events of every kind:`,
    ...failure.recentEvents.map((line) => `  ${line}`),
    `rerun: ${rerunCommand(options)}`,
  ];
}

/** A run as `--json` reports it (without the history and the event lines). */
export function runRecord(result: SimulationResult): Record<string, unknown> {
  return {
    seed: result.seed,
    swarm: result.swarm,
    ok: result.failure === null,
    simulatedSeconds: Number(seconds(result.simulatedMs)),
    events: result.events,
    operations: result.operations,
    configurations: result.configurations,
    reconfigurations: result.reconfigurations,
    faults: result.faults,
    network: result.network,
    digest: result.digest,
    diskDamage: result.diskDamage,
    ...(result.failure === null ? {} : {
      invariant: result.failure.invariant,
      error: `${result.failure.invariant}: ${result.failure.detail}`,
      failureSimulatedSeconds: Number(seconds(result.failure.timeMs)),
      explanation: result.failure.explanation,
      lastEvents: result.failure.lastEvents,
    }),
  };
}

function seconds(milliseconds: number): string {
  return (milliseconds / 1000).toFixed(3);
}
