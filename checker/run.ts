/**
 * Runs one check: builds the model from its definition and dispatches to the strategy.
 * Every strategy counts the same distinct states; only BFS (on one or more workers)
 * guarantees a shortest counterexample.
 */
import { ok as assert } from 'node:assert';
import { checkpointSetup } from './checkpoint.js';
import { modelSource } from './load-model.js';
import { breadthFirstSearch } from './bfs.js';
import { depthFirstSearch } from './dfs.js';
import type { AnyModel, ModelDefinition, Params } from './model.js';
import { parallelDiskSearch } from './disk-parallel.js';
import { parallelBreadthFirstSearch } from './parallel-bfs.js';
import type { Path, SearchOptions, SearchResult } from './search.js';
import { searchOnThread } from './search-thread.js';
import { byReference } from './storage.js';
import { simulateSeeds } from './swarm.js';

export type Strategy = 'bfs' | 'dfs' | 'random';
export const strategies: readonly Strategy[] = ['bfs', 'dfs', 'random'];

export interface CheckRequest {
  readonly definition: ModelDefinition;
  /** The module that exports the registered models, where worker threads load them from. */
  readonly registry?: string;
  /** The model, when the caller built it already (to validate parameters before printing). */
  readonly model?: AnyModel;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly strategy: Strategy;
  readonly workers: number;
  readonly seed: number;
  readonly walks?: number;
  readonly walkLength?: number;
  /** Random only: a swarm of seeds seed .. seed + seeds - 1. */
  readonly seeds?: number;
  readonly search: SearchOptions;
  /** Report every violated invariant with its first trace (`--continue`). */
  readonly everyViolation?: boolean;
}

export interface CheckOutcome {
  readonly model: AnyModel;
  /** The first violation found (or none), with the counts of the whole run. */
  readonly search: SearchResult;
  /** With `everyViolation`: each violated invariant once, with its own first trace. */
  readonly violations: readonly { readonly invariant: string; readonly path: Path }[];
}

export async function runCheck(request: CheckRequest): Promise<CheckOutcome> {
  const model = request.model ?? request.definition.create(request.params, request.bug);
  if (!request.everyViolation) {
    const search = await searchWith(model, request);
    const violations =
      search.path && search.invariant ? [{ invariant: search.invariant, path: search.path }] : [];
    return { model, search, violations };
  }
  return everyViolation(model, request);
}

/**
 * TLC's -continue, reporting every violated invariant: search until the first violation,
 * set that invariant aside, search again for the rest, until a search finds none. Each
 * invariant gets the first trace its own search finds (a shortest one under BFS), and the
 * last search covers the whole bounded space for the invariants that hold. Runs in this
 * thread: the model with invariants set aside exists only here, not in worker threads.
 */
async function everyViolation(model: AnyModel, request: CheckRequest): Promise<CheckOutcome> {
  const violations: { invariant: string; path: Path }[] = [];
  let remaining = model.invariants;
  let first: SearchResult | undefined;
  let seconds = 0;
  for (let round = 0; round <= model.invariants.length; round++) {
    const narrowed: AnyModel = Object.create(model, { invariants: { value: remaining } });
    const skipped = violations.map((violation) => violation.invariant);
    const search = await searchWith(narrowed, { ...request, workers: 1 }, skipped);
    first ??= search;
    seconds += search.seconds;
    if (search.result !== 'violation' || !search.invariant || !search.path) {
      const merged =
        violations.length > 0 ? { ...first, ...withoutVerdict(search), seconds } : search;
      return { model, search: merged, violations };
    }
    violations.push({ invariant: search.invariant, path: search.path });
    remaining = remaining.filter((invariant) => invariant.name !== search.invariant);
  }
  throw new Error('every invariant was reported violated, yet the search went on');
}

/** The counts and stop reason of the last search, keeping the first search's verdict. */
function withoutVerdict(search: SearchResult): Partial<SearchResult> {
  return {
    distinctStates: search.distinctStates,
    statesGenerated: search.statesGenerated,
    depth: search.depth,
    exhaustive: search.exhaustive && search.result === 'ok',
    ...(search.stoppedBy ? { stoppedBy: search.stoppedBy } : {}),
    ...(search.sometimesUnreached ? { sometimesUnreached: search.sometimesUnreached } : {}),
    ...(search.coverage ? { coverage: search.coverage } : {}),
  };
}

function searchWith(
  model: AnyModel,
  request: CheckRequest,
  skipInvariants: readonly string[] = [],
): Promise<SearchResult> | SearchResult {
  const { stopFlag } = request.search;
  const parallel = request.strategy === 'bfs' && request.workers > 1;
  if (stopFlag && !parallel) return searchOnItsThread(request, stopFlag, skipInvariants);
  switch (request.strategy) {
    case 'bfs': {
      if (request.workers <= 1) return breadthFirstSearch(model, request.search);
      const workers = {
        model: modelSource(request.definition, request.registry),
        params: request.params,
        bug: request.bug,
        workers: request.workers,
      };
      if (request.search.disk) return parallelDiskSearch(model, workers, request.search);
      return parallelBreadthFirstSearch(workers, request.search);
    }
    case 'dfs':
      return depthFirstSearch(model, request.search);
    case 'random':
      return simulateSeeds(model, {
        ...request.search,
        seed: request.seed,
        ...(request.walks !== undefined ? { walks: request.walks } : {}),
        ...(request.walkLength !== undefined ? { walkLength: request.walkLength } : {}),
        ...(request.seeds !== undefined ? { seeds: request.seeds } : {}),
      });
  }
}

/** A stoppable single-thread search: on a worker thread, so that the caller can stop it. */
function searchOnItsThread(
  request: CheckRequest,
  stopFlag: Int32Array,
  skipInvariants: readonly string[],
): Promise<SearchResult> {
  const { maxStates, timeLimitSeconds, progressIntervalMs, onProgress, deadlock, coverage } =
    request.search;
  const { checkpoint, disk, recordGraph } = request.search;
  assert(stopFlag.buffer instanceof SharedArrayBuffer, 'a stop flag must be shared memory');
  return searchOnThread(
    {
      model: modelSource(request.definition, request.registry),
      params: request.params,
      bug: request.bug,
      strategy: request.strategy,
      skipInvariants,
      options: {
        ...(maxStates !== undefined ? { maxStates } : {}),
        ...(timeLimitSeconds !== undefined ? { timeLimitSeconds } : {}),
        ...(progressIntervalMs !== undefined ? { progressIntervalMs } : {}),
        ...(deadlock !== undefined ? { deadlock } : {}),
        ...(coverage !== undefined ? { coverage } : {}),
        ...(recordGraph !== undefined ? { recordGraph } : {}),
        ...(checkpoint !== undefined ? { checkpoint: checkpointSetup(checkpoint) } : {}),
        ...(disk !== undefined ? { disk: byReference(disk) } : {}),
      },
      simulation: {
        seed: request.seed,
        ...(request.walks !== undefined ? { walks: request.walks } : {}),
        ...(request.walkLength !== undefined ? { walkLength: request.walkLength } : {}),
        ...(request.seeds !== undefined ? { seeds: request.seeds } : {}),
      },
      stopFlag: stopFlag.buffer,
      reportProgress: onProgress !== undefined,
    },
    onProgress,
  );
}
