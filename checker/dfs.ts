/**
 * Depth-first search on one thread: one stack of encoded states, each with its depth.
 * Finds the same distinct states as BFS; its counterexamples are not the shortest.
 */
import { Explorer } from './explorer.js';
import type { AnyModel } from './model.js';
import type { SearchOptions, SearchResult } from './search.js';
import { emptyQueueEntry, StateQueue } from './state-store.js';

export function depthFirstSearch(model: AnyModel, options: SearchOptions = {}): SearchResult {
  const stack = new StateQueue();
  const depths: number[] = [];
  const explorer = new Explorer(model, options, (id, words, start, end, depth) => {
    stack.pushWords(id, words, start, end);
    depths.push(depth);
  });
  const entry = emptyQueueEntry();
  explorer.visitInitialStates();
  while (explorer.running && stack.count > 0) {
    explorer.queued = stack.count;
    stack.popEntry(entry);
    // The popped words stay valid until the next push, which only `expand` can do, after
    // it has decoded them.
    explorer.expand(entry, depths.pop()!);
  }
  return explorer.result();
}
