/**
 * Runs one check: builds the model from its definition and dispatches to the strategy.
 * Every strategy counts the same distinct states; only BFS (on one or more workers)
 * guarantees a shortest counterexample.
 */
import { breadthFirstSearch } from './bfs.js';
import { depthFirstSearch } from './dfs.js';
import type { AnyModel, ModelDefinition, Params } from './model.js';
import { parallelBreadthFirstSearch } from './parallel-bfs.js';
import type { SearchOptions, SearchResult } from './search.js';
import { simulate } from './simulate.js';

export type Strategy = 'bfs' | 'dfs' | 'random';
export const strategies: readonly Strategy[] = ['bfs', 'dfs', 'random'];

export interface CheckRequest {
  readonly definition: ModelDefinition;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly strategy: Strategy;
  readonly workers: number;
  readonly seed: number;
  readonly walks?: number;
  readonly walkLength?: number;
  readonly search: SearchOptions;
}

export interface CheckOutcome {
  readonly model: AnyModel;
  readonly search: SearchResult;
}

export async function runCheck(request: CheckRequest): Promise<CheckOutcome> {
  const model = request.definition.create(request.params, request.bug);
  const search = await searchWith(model, request);
  return { model, search };
}

function searchWith(model: AnyModel, request: CheckRequest): Promise<SearchResult> | SearchResult {
  switch (request.strategy) {
    case 'bfs':
      if (request.workers <= 1) return breadthFirstSearch(model, request.search);
      return parallelBreadthFirstSearch(
        {
          // A model outside the registry travels as its module path (load-model.ts).
          model: request.definition.modulePath ?? request.definition.name,
          params: request.params,
          bug: request.bug,
          workers: request.workers,
        },
        request.search,
      );
    case 'dfs':
      return depthFirstSearch(model, request.search);
    case 'random':
      return simulate(model, {
        ...request.search,
        seed: request.seed,
        ...(request.walks !== undefined ? { walks: request.walks } : {}),
        ...(request.walkLength !== undefined ? { walkLength: request.walkLength } : {}),
      });
  }
}
