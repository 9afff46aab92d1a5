/**
 * Breadth-first search on one thread: level by level, so the first violation found has a
 * shortest path. Each level is one buffer of encoded states, read by an index.
 */
import { Explorer } from './explorer.js';
import type { AnyModel } from './model.js';
import type { SearchOptions, SearchResult } from './search.js';
import { emptyQueueEntry, StateQueue } from './state-store.js';

export function breadthFirstSearch(model: AnyModel, options: SearchOptions = {}): SearchResult {
  let current = new StateQueue();
  let upcoming = new StateQueue();
  const explorer = new Explorer(model, options, (id, encoded) => upcoming.push(id, encoded));
  const entry = emptyQueueEntry();
  explorer.visitInitialStates();
  for (let level = 0; explorer.running && upcoming.count > 0; level++) {
    [current, upcoming] = [upcoming, current];
    upcoming.clear();
    while (explorer.running && current.count > 0) {
      explorer.queued = current.count + upcoming.count;
      current.shiftEntry(entry);
      explorer.expand(entry, level);
    }
  }
  return explorer.result();
}
