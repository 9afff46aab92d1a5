import type { Params } from './model.js';
import type { SearchOptions, SearchResult } from './search.js';

export interface ParallelRequest {
  readonly model: string;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly workers: number;
}

export async function parallelBreadthFirstSearch(
  _request: ParallelRequest,
  _options: SearchOptions,
): Promise<SearchResult> {
  throw new Error('parallel search is being written');
}
