/**
 * Checker throughput and memory on TwoPhase (6, 7 and 8 resource managers): distinct and
 * generated states per second for 1 and 2 workers, heap bytes per distinct state, and the
 * ratio to the naive baseline (naive-bfs.ts) measured in the same run.
 */
import { breadthFirstSearch } from '../checker/bfs.js';
import { parallelBreadthFirstSearch } from '../checker/parallel-bfs.js';
import { createTwoPhaseModel } from '../spec/calibration/twophase.js';
import { naiveBreadthFirstSearch } from './naive-bfs.js';
import type { BenchSection } from './sections.js';

const memory = () => {
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
};

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

async function measure(rms: number, workers: number): Promise<string> {
  globalThis.gc?.();
  const before = memory();
  let peakHeap = before.heap;
  let peakRss = before.rss;
  const sample = () => {
    const now = memory();
    peakHeap = Math.max(peakHeap, now.heap);
    peakRss = Math.max(peakRss, now.rss);
    return undefined;
  };
  let retainedHeap = 0;
  const finished = () => {
    globalThis.gc?.();
    retainedHeap = memory().heap - before.heap;
  };
  const options = { onProgress: sample, progressIntervalMs: 0, onFinished: finished };
  const started = performance.now();
  const result =
    workers === 1
      ? breadthFirstSearch(createTwoPhaseModel(rms), options)
      : await parallelBreadthFirstSearch(
          { model: 'twophase', params: { rms }, bug: undefined, workers },
          { ...options, progressIntervalMs: 50 },
        );
  const elapsed = seconds(started);
  sample();
  const distinct = result.distinctStates;
  // With workers the states live in their isolates: only the process's RSS sees them.
  const perState = (bytes: number) => (bytes / distinct).toFixed(1);
  const bytes =
    workers === 1
      ? `heap per state: ${perState(retainedHeap)} B retained, ${perState(peakHeap - before.heap)} B peak`
      : `peak RSS per state: ${perState(peakRss - before.rss)} B`;
  return (
    `twophase rms=${rms} workers=${workers}: ${distinct} distinct, ${result.statesGenerated} generated, ` +
    `${elapsed.toFixed(2)} s, ${Math.round(distinct / elapsed)} distinct/s, ` +
    `${Math.round(result.statesGenerated / elapsed)} generated/s, ${bytes}`
  );
}

export const checkerBench: BenchSection = {
  name: 'checker',
  description: 'BFS on TwoPhase: states/s and bytes per distinct state; naive baseline ratio',
  async run() {
    if (!globalThis.gc) console.log('(run node with --expose-gc for steadier memory figures)');
    let started = performance.now();
    const naive = naiveBreadthFirstSearch(createTwoPhaseModel(7));
    const naiveSeconds = seconds(started);
    started = performance.now();
    const ours = breadthFirstSearch(createTwoPhaseModel(7));
    const oursSeconds = seconds(started);
    console.log(
      `naive BFS (JSON keys in a Set) rms=7: ${naive.distinct} distinct in ${naiveSeconds.toFixed(2)} s; ` +
        `ours ${ours.distinctStates} in ${oursSeconds.toFixed(2)} s: ` +
        `${(naiveSeconds / oursSeconds).toFixed(1)}x faster`,
    );
    for (const rms of [6, 7, 8]) {
      for (const workers of [1, 2]) console.log(await measure(rms, workers));
    }
  },
};
