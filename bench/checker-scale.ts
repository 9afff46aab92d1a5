/**
 * `npm run bench -- scale`: issue 22's figures. TwoPhase 8 RMs on 1 and 2 workers, run
 * alternately (1, 2, 1, 2) in fresh processes so both see the same load, with the load
 * average beside them, then again beside two busy processes; bytes per visited state on one thread; the liveness pass against the
 * safety search on TwoPhase 7 and on the raft liveness preset (issue 24, point 7); the disk
 * mode against memory (issue 22, point 3).
 */
import { loadavg } from 'node:os';
import { breadthFirstSearch } from '../checker/bfs.js';
import { checkLiveness } from '../checker/liveness.js';
import type { AnyModel } from '../checker/model.js';
import { resolveParams } from '../checker/params.js';
import { createTwoPhaseModel } from '../models/calibration/twophase.js';
import { raftDefinition } from '../models/raft/index.js';
import { measureInProcess, type Measurement } from './checker.js';
import { startBusyLoad } from './cluster/busy-load.js';
import type { BenchSection } from './sections.js';

const load = () => loadavg().map((value) => value.toFixed(1)).join(' ');

/** `busy`: how many spinning processes ran beside the runs (bench/cluster/busy-load.ts). */
function workersLine(rms: number, busy = 0): void {
  const runs: { workers: number; result: Measurement }[] = [];
  for (const workers of [1, 2, 1, 2]) {
    runs.push({ workers, result: measureInProcess('ours', rms, workers) });
  }
  const best = (workers: number, figure: (result: Measurement) => number) =>
    Math.min(...runs.filter((run) => run.workers === workers).map((run) => figure(run.result)));
  const wall = (result: Measurement) => result.seconds;
  // All threads of the process: on a shared machine the figure that load does not change.
  const cpu = (result: Measurement) => result.cpuSeconds ?? NaN;
  const [first] = runs;
  console.log(
    `twophase rms=${rms}${busy > 0 ? ` beside ${busy} busy processes` : ''}: ` +
      `${first!.result.distinct} distinct; best of two: 1 worker ` +
      `${best(1, wall).toFixed(2)} s, 2 workers ${best(2, wall).toFixed(2)} s, speed-up ` +
      `${(best(1, wall) / best(2, wall)).toFixed(2)}x; CPU time ${best(1, cpu).toFixed(2)} s ` +
      `and ${best(2, cpu).toFixed(2)} s, ${(best(2, cpu) / best(1, cpu)).toFixed(2)}x ` +
      `(load average ${load()})`,
  );
  if (busy > 0) return;
  const { retainedHeap, storedBytes, distinct } = first!.result;
  const perState = (bytes: number) => (bytes / distinct).toFixed(1);
  if (retainedHeap != null && storedBytes != null) {
    console.log(
      `  bytes per visited state, 1 worker: ${perState(storedBytes)} (visited set and parent ` +
        `links); retained heap ${perState(retainedHeap)} (with the two levels' queues)`,
    );
  }
  const shared = runs.find((run) => run.workers === 2)!.result.storedBytes;
  if (shared != null) {
    console.log(`  bytes per visited state, 2 workers: ${perState(shared)} (the shared visited set)`);
  }
}

/**
 * The disk mode's cost: TwoPhase on one thread in memory and under `--disk --memory 16m`
 * (a batch smaller than the widest levels, so they merge several times) on 1 and 2 workers,
 * alternately.
 */
export function diskLine(rms: number): void {
  const memoryBytes = 16 * 2 ** 20;
  const kinds = ['memory', 'disk', 'disk on 2 workers'] as const;
  const runs: { kind: (typeof kinds)[number]; result: Measurement }[] = [];
  for (let round = 0; round < 2; round++) {
    for (const kind of kinds) {
      const result = kind === 'memory'
        ? measureInProcess('ours', rms, 1)
        : measureInProcess('disk', rms, memoryBytes, kind === 'disk' ? 1 : 2);
      runs.push({ kind, result });
    }
  }
  const best = (kind: (typeof kinds)[number], figure: (result: Measurement) => number) =>
    Math.min(...runs.filter((run) => run.kind === kind).map((run) => figure(run.result)));
  const wall = (result: Measurement) => result.seconds;
  const cpu = (result: Measurement) => result.cpuSeconds ?? NaN;
  const [memory, disk, diskWorkers] = [runs[0]!.result, runs[1]!.result, runs[2]!.result];
  const same = [disk, diskWorkers].every((result) =>
    memory.distinct === result.distinct && memory.generated === result.generated);
  const ratio = (first: (typeof kinds)[number], second: (typeof kinds)[number]) =>
    `wall ${best(first, wall).toFixed(2)} s / ${best(second, wall).toFixed(2)} s = ` +
    `${(best(first, wall) / best(second, wall)).toFixed(2)}x, ` +
    `CPU ${best(first, cpu).toFixed(2)} s / ` +
    `${best(second, cpu).toFixed(2)} s = ${(best(first, cpu) / best(second, cpu)).toFixed(2)}x`;
  console.log(
    `twophase rms=${rms} on disk (--memory 16m) against memory, best of two: ` +
      `${ratio('disk', 'memory')}; ` +
      `peak RSS growth ${Math.round((disk.peakRss ?? 0) / 2 ** 20)} MiB / ` +
      `${Math.round((memory.peakRss ?? 0) / 2 ** 20)} MiB; counts ${same ? 'equal' : 'DIFFER'} ` +
      `(load average ${load()})\n` +
      `  on disk, 2 workers against 1: ${ratio('disk on 2 workers', 'disk')}`,
  );
}

/** User CPU seconds of `run`, with its result: the machine is shared, wall time is noisy. */
function cpuSeconds<T>(run: () => T): { result: T; cpu: number } {
  const before = process.cpuUsage().user;
  const result = run();
  return { result, cpu: (process.cpuUsage().user - before) / 1e6 };
}

/**
 * The safety search alone against the same search recording the state graph plus the
 * liveness pass on that graph (what `check` runs), in one process, one after the other.
 */
function livenessLine(label: string, model: AnyModel): void {
  const safety = cpuSeconds(() => breadthFirstSearch(model));
  const recorded = cpuSeconds(() => breadthFirstSearch(model, { recordGraph: true }));
  const graph = recorded.result.graph!;
  const pass = cpuSeconds(() => checkLiveness(model, {}, graph));
  const withLiveness = recorded.cpu + pass.cpu;
  const edgeBytes = graph.edgeTarget.byteLength + graph.edgeAction.byteLength +
    graph.edgeClass.byteLength;
  console.log(
    `${label}: CPU time (user) safety ${safety.cpu.toFixed(2)} s ` +
      `(${safety.result.distinctStates} states), with liveness ${withLiveness.toFixed(2)} s ` +
      `(search recording the graph ${recorded.cpu.toFixed(2)} s, liveness pass ` +
      `${pass.cpu.toFixed(2)} s): ${(withLiveness / safety.cpu).toFixed(2)}x the safety search ` +
      `(load average ${load()})\n` +
      `  graph: ${graph.edgeCount} edges, ${(edgeBytes / graph.edgeCount).toFixed(1)} bytes per ` +
      `edge, ${(graph.bytes / 2 ** 20).toFixed(1)} MiB in all ` +
      `(${pass.result.result}; wall: safety ${safety.result.seconds.toFixed(2)} s, with ` +
      `liveness ${(recorded.result.seconds + pass.result.seconds).toFixed(2)} s)`,
  );
}

export const scaleBench: BenchSection = {
  name: 'scale',
  description:
    '2-worker speed-up, bytes per state, disk against memory, liveness against safety ' +
    '(issues 22, 24)',
  async run() {
    workersLine(8);
    // A loaded machine: two spinners in the bench's own session, so the kernel's autogroup
    // shares the cores among them and the runs' threads, not among sessions.
    const busy = startBusyLoad(2);
    try {
      workersLine(8, busy.processes);
    } finally {
      await busy.stop();
    }
    diskLine(8);
    livenessLine('twophase rms=7', createTwoPhaseModel(7));
    const preset = resolveParams(raftDefinition, undefined, { preset: 'liveness' });
    livenessLine('raft --preset liveness', raftDefinition.create(preset, undefined));
  },
};
