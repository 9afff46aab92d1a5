/**
 * One checker measurement in a process of its own, so that no run inherits another's heap:
 * `node --expose-gc checker-run.js naive RMS`, `... ours RMS WORKERS` or `... disk RMS BYTES
 * [WORKERS]` (`--disk` in a fresh temporary directory under a cap of BYTES, on one thread
 * unless WORKERS is given). Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { breadthFirstSearch } from '../checker/bfs.js';
import { parallelDiskSearch } from '../checker/disk-parallel.js';
import { parallelBreadthFirstSearch } from '../checker/parallel-bfs.js';
import type { SearchOptions } from '../checker/search.js';
import { createTwoPhaseModel } from '../models/calibration/twophase.js';
import { naiveBreadthFirstSearch } from './naive-bfs.js';
import { registryModule } from '../models/registry.js';
import { openDirectory } from '../cli/file-directory.js';

const memory = () => {
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
};

async function measureOurs(rms: number, workers: number, diskMemoryBytes?: number) {
  const diskPath = diskMemoryBytes ? mkdtempSync(join(tmpdir(), 'shardkv-bench-disk-')) : '';
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
    ...(diskMemoryBytes
      ? { disk: { directory: openDirectory(diskPath), memoryBytes: diskMemoryBytes } }
      : {}),
    onProgress: sample,
    progressIntervalMs: workers === 1 ? 0 : 50,
    onFinished: (stored) => {
      storedBytes = stored;
      globalThis.gc?.();
      retainedHeap = memory().heap - before.heap;
    },
  };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const request = {
    model: { module: registryModule, name: 'twophase' },
    params: { rms },
    bug: undefined,
    workers,
  };
  const result =
    workers === 1
      ? breadthFirstSearch(createTwoPhaseModel(rms), options)
      : diskMemoryBytes
        ? await parallelDiskSearch(createTwoPhaseModel(rms), request, options)
        : await parallelBreadthFirstSearch(request, options);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (diskPath) rmSync(diskPath, { recursive: true, force: true });
  sample();
  return {
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    distinct: result.distinctStates,
    generated: result.statesGenerated,
    seconds,
    // With workers the states live in their isolates: only the process's RSS sees them.
    retainedHeap: workers === 1 ? retainedHeap : null,
    storedBytes,
    peakHeap: workers === 1 ? peakHeap - before.heap : null,
    peakRss: peakRss - before.rss,
  };
}

const [mode, rmsText, workersText, diskWorkersText] = process.argv.slice(2);
const rms = Number(rmsText);
if (mode === 'naive') {
  const started = performance.now();
  const result = naiveBreadthFirstSearch(createTwoPhaseModel(rms));
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ distinct: result.distinct, generated: result.generated, seconds }));
} else if (mode === 'disk') {
  const workers = Number(diskWorkersText ?? 1);
  console.log(JSON.stringify(await measureOurs(rms, workers, Number(workersText))));
} else {
  console.log(JSON.stringify(await measureOurs(rms, Number(workersText))));
}
