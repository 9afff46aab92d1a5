/**
 * Runs a single-thread search on a worker thread (search-thread-worker.ts) and relays its
 * progress and result. A search on the main thread never yields, so a Ctrl-C handler could
 * not run until it ended; on a worker, the main thread sets the shared stop flag and the
 * search returns what it found so far.
 */
import { startWorker } from './worker-handle.js';
import type { CheckpointSetup } from './checkpoint.js';
import type { DiskSetup } from './disk-bfs.js';
import type { ModelSource } from './load-model.js';
import type { Params } from './model.js';
import type { Progress, SearchOptions, SearchResult } from './search.js';

export interface ThreadSetup {
  readonly model: ModelSource;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly strategy: 'bfs' | 'dfs' | 'random';
  readonly skipInvariants: readonly string[];
  /** The plain-data options (limits); callbacks stay on the main thread. */
  readonly options: Pick<
    SearchOptions,
    | 'maxStates' | 'timeLimitSeconds' | 'progressIntervalMs' | 'deadlock' | 'coverage'
    | 'recordGraph'
  > & {
    /** The checkpoint's directory by reference: the thread reopens it. */
    readonly checkpoint?: CheckpointSetup;
    /** The disk mode's directory, by reference too. */
    readonly disk?: DiskSetup;
  };
  readonly simulation: {
    readonly seed: number;
    readonly walks?: number;
    readonly walkLength?: number;
    /** Seeds seed .. seed + seeds - 1, a swarm (swarm.ts). */
    readonly seeds?: number;
  };
  readonly stopFlag: SharedArrayBuffer;
  readonly reportProgress: boolean;
}

export type ThreadMessage =
  | { readonly type: 'progress'; readonly progress: Progress }
  | { readonly type: 'done'; readonly result: SearchResult };

export function searchOnThread(
  setup: ThreadSetup,
  onProgress: ((progress: Progress) => void) | undefined,
): Promise<SearchResult> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(import.meta.url, 'search-thread-worker', setup);
    let result: SearchResult | undefined;
    worker.on('message', (message: ThreadMessage) => {
      if (message.type === 'progress') onProgress?.(message.progress);
      else result = message.result;
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`the search thread exited with code ${code} and no result`));
    });
  });
}
