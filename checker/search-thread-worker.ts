/**
 * One single-thread search (bfs, dfs or random) on a worker thread, so that the main thread
 * stays free to handle Ctrl-C: it sets the shared stop flag, the search stops as at its time
 * limit and its result (counts so far, any violation) comes back as usual. See
 * search-thread.ts for the other side.
 */
import { ok as assert } from 'node:assert';
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointFromSetup } from './checkpoint.js';
import { loadModelSource } from './load-model.js';
import { breadthFirstSearch } from './bfs.js';
import { depthFirstSearch } from './dfs.js';
import type { AnyModel } from './model.js';
import type { Progress, SearchOptions } from './search.js';
import type { ThreadMessage, ThreadSetup } from './search-thread.js';
import { reopened } from './storage.js';
import { simulateSeeds } from './swarm.js';

const setup = workerData as ThreadSetup;
const definition = await loadModelSource(setup.model);
const model = definition.create(setup.params, setup.bug);
// The invariants a --continue run has already reported are set aside (run.ts does the same
// in-process).
const narrowed: AnyModel = Object.create(model, {
  invariants: {
    value: model.invariants.filter((invariant) => !setup.skipInvariants.includes(invariant.name)),
  },
});
const post = (message: ThreadMessage) => parentPort!.postMessage(message);
const { checkpoint, disk, ...limits } = setup.options;
const options: SearchOptions = {
  ...limits,
  ...(checkpoint !== undefined ? { checkpoint: await checkpointFromSetup(checkpoint) } : {}),
  ...(disk !== undefined ? { disk: await reopened(disk) } : {}),
  stopFlag: new Int32Array(setup.stopFlag),
  ...(setup.reportProgress
    ? { onProgress: (progress: Progress) => post({ type: 'progress', progress }) }
    : {}),
};
const result =
  setup.strategy === 'bfs'
    ? breadthFirstSearch(narrowed, options)
    : setup.strategy === 'dfs'
      ? depthFirstSearch(narrowed, options)
      : simulateSeeds(narrowed, { ...options, ...setup.simulation });
// The graph's arrays move to the main thread (its liveness pass) rather than being copied.
const graph = result.graph;
const arrays = graph ? [graph.edgeStart, graph.edgeTarget, graph.edgeAction, graph.edgeClass,
  graph.parent, graph.parentAction, graph.propertyBits] : [];
parentPort!.postMessage({ type: 'done', result } satisfies ThreadMessage,
  arrays.map((array) => array.buffer as ArrayBuffer));
