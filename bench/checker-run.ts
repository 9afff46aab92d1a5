/**
 * One checker measurement in a process of its own, so that no run inherits another's heap:
 * `node --expose-gc checker-run.js naive RMS` or `... ours RMS WORKERS`. Prints one JSON line.
 */
import { breadthFirstSearch } from '../checker/bfs.js';
import { parallelBreadthFirstSearch } from '../checker/parallel-bfs.js';
import type { SearchOptions } from '../checker/search.js';
import { createTwoPhaseModel } from '../models/calibration/twophase.js';
import { naiveBreadthFirstSearch } from './naive-bfs.js';
import { registryModule } from '../models/registry.js';

const memory = () => {
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
};

async function measureOurs(rms: number, workers: number) {
  globalThis.gc?.();
  const before = memory();
  let peakHeap = before.heap;
  let peakRss = before.rss;
  let retainedHeap = 0;
  let storedBytes = 0;
  const sample = () => {
    const now = memory();
    peakHeap = Math.max(peakHeap, now.heap);
    peakRss = Math.max(peakRss, now.rss);
  };
  const options: SearchOptions = {
    onProgress: sample,
    progressIntervalMs: workers === 1 ? 0 : 50,
    onFinished: (stored) => {
      storedBytes = stored;
      globalThis.gc?.();
      retainedHeap = memory().heap - before.heap;
    },
  };
  const started = performance.now();
  const result =
    workers === 1
      ? breadthFirstSearch(createTwoPhaseModel(rms), options)
      : await parallelBreadthFirstSearch(
          {
            model: { module: registryModule, name: 'twophase' },
            params: { rms },
            bug: undefined,
            workers,
          },
          options,
        );
  const seconds = (performance.now() - started) / 1000;
  sample();
  return {
    distinct: result.distinctStates,
    generated: result.statesGenerated,
    seconds,
    // With workers the states live in their isolates: only the process's RSS sees them.
    retainedHeap: workers === 1 ? retainedHeap : null,
    storedBytes: workers === 1 ? storedBytes : null,
    peakHeap: workers === 1 ? peakHeap - before.heap : null,
    peakRss: peakRss - before.rss,
  };
}

const [mode, rmsText, workersText] = process.argv.slice(2);
const rms = Number(rmsText);
if (mode === 'naive') {
  const started = performance.now();
  const result = naiveBreadthFirstSearch(createTwoPhaseModel(rms));
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ distinct: result.distinct, generated: result.generated, seconds }));
} else {
  console.log(JSON.stringify(await measureOurs(rms, Number(workersText))));
}
