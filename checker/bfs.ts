/**
 * Breadth-first search on one thread: level by level, so the first violation found has a
 * shortest path. Each level is one buffer of encoded states, read by an index. A level in
 * which a violation is found is finished before the search stops, so the counts are those
 * of every worker count (explorer.ts, parallel-bfs.ts).
 */
import { Explorer } from './explorer.js';
import type { AnyModel } from './model.js';
import type { SearchOptions, SearchResult } from './search.js';
import { emptyQueueEntry, StateQueue } from './state-store.js';
import type { WordWriter } from './words.js';

export function breadthFirstSearch(model: AnyModel, options: SearchOptions = {}): SearchResult {
  let current = new StateQueue();
  let upcoming = new StateQueue();
  const enqueue = (id: number, encoded: WordWriter) => upcoming.push(id, encoded);
  const explorer = new Explorer(model, options, enqueue, true);
  const entry = emptyQueueEntry();
  explorer.visitInitialStates();
  const stopAtViolation = options.continueAfterViolation !== true;
  for (let level = 0; explorer.running && upcoming.count > 0; level++) {
    if (stopAtViolation && explorer.violationFound) break;
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
