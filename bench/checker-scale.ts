/**
 * `npm run bench -- scale`: issue 22's figures. TwoPhase 8 RMs on 1 and 2 workers, run
 * alternately (1, 2, 1, 2) in fresh processes so both see the same load, with the load
 * average beside them; bytes per visited state on one thread; the liveness pass against the
 * safety search on TwoPhase 7 and on the raft liveness preset (issue 24, point 7).
 */
import { loadavg } from 'node:os';
import { breadthFirstSearch } from '../checker/bfs.js';
import { checkLiveness } from '../checker/liveness.js';
import type { AnyModel } from '../checker/model.js';
import { resolveParams } from '../checker/params.js';
import { createTwoPhaseModel } from '../models/calibration/twophase.js';
import { raftDefinition } from '../models/raft/index.js';
import { measureInProcess, type Measurement } from './checker.js';
import type { BenchSection } from './sections.js';

const load = () => loadavg().map((value) => value.toFixed(1)).join(' ');

function workersLine(rms: number): void {
  const runs: { workers: number; result: Measurement }[] = [];
  for (const workers of [1, 2, 1, 2]) {
    runs.push({ workers, result: measureInProcess('ours', rms, workers) });
  }
  const best = (workers: number) =>
    Math.min(...runs.filter((run) => run.workers === workers).map((run) => run.result.seconds));
  const [first] = runs;
  console.log(
    `twophase rms=${rms}: ${first!.result.distinct} distinct; best of two: 1 worker ` +
      `${best(1).toFixed(2)} s, 2 workers ${best(2).toFixed(2)} s, speed-up ` +
      `${(best(1) / best(2)).toFixed(2)}x (load average ${load()})`,
  );
  const { retainedHeap, storedBytes, distinct } = first!.result;
  if (retainedHeap != null && storedBytes != null) {
    const perState = (bytes: number) => (bytes / distinct).toFixed(1);
    console.log(
      `  bytes per visited state, 1 worker: ${perState(storedBytes)} (visited set and parent ` +
        `links); retained heap ${perState(retainedHeap)} (with the two levels' queues)`,
    );
  }
}

function livenessLine(label: string, model: AnyModel): void {
  const safety = breadthFirstSearch(model);
  const liveness = checkLiveness(model);
  console.log(
    `${label}: safety ${safety.seconds.toFixed(2)} s (${safety.distinctStates} states), ` +
      `liveness pass ${liveness.seconds.toFixed(2)} s, with liveness ` +
      `${((safety.seconds + liveness.seconds) / safety.seconds).toFixed(1)}x the safety search ` +
      `(load average ${load()})`,
  );
}

export const scaleBench: BenchSection = {
  name: 'scale',
  description: '2-worker speed-up, bytes per state, liveness against safety (issues 22, 24)',
  async run() {
    workersLine(8);
    livenessLine('twophase rms=7', createTwoPhaseModel(7));
    const preset = resolveParams(raftDefinition, undefined, { preset: 'liveness' });
    livenessLine('raft --preset liveness', raftDefinition.create(preset, undefined));
  },
};
