/**
 * Breadth-first search with the visited set and the frontier in files (`check --disk DIR
 * --memory SIZE`), for state spaces beyond memory. Level by level as bfs.ts: the level's
 * states stream from one file while the states found new stream into the next
 * (disk-frontier.ts), and the visited set is a bounded batch in memory merged into a sorted
 * file (disk-fingerprint-set.ts), so memory stays under the cap whatever the state count.
 * Counts and verdict are the in-memory search's; parent links are not kept, so a violation's
 * trace is rebuilt by the in-memory search (bfs.ts, withRebuiltPath).
 */
import { DiskFingerprintSet, diskBudget } from './disk-fingerprint-set.js';
import { DiskFrontier } from './disk-frontier.js';
import { fingerprint } from './fingerprint.js';
import { Explorer } from './explorer.js';
import type { AnyModel } from './model.js';
import type { SearchOptions, SearchResult } from './search.js';
import { emptyQueueEntry } from './state-store.js';
import type { ByReference, Directory } from './storage.js';
import type { WordWriter } from './words.js';

export interface DiskOptions {
  readonly directory: Directory;
  /** The cap of what the search keeps in memory, in bytes (diskBudget shares it out). */
  readonly memoryBytes: number;
}

/** The options with the directory by reference, to cross to a worker thread. */
export type DiskSetup = ByReference<DiskOptions>;

export function diskBreadthFirstSearch(model: AnyModel, options: SearchOptions): SearchResult {
  const { directory, memoryBytes } = options.disk!;
  const budget = diskBudget(memoryBytes);
  const frontier = new DiskFrontier(directory, budget.streamWords);
  /** The depth of the states the batch's candidates were found at. */
  let candidateDepth = 0;
  const visited = new DiskFingerprintSet(directory, budget, (words, start, end) => {
    explorer.admit(words, start, end, candidateDepth);
    frontier.push(words, start, end);
  });
  // The explorer has just added the candidate's fingerprint to the batch's table.
  const enqueue = (_id: number, encoded: WordWriter) =>
    visited.add(fingerprint.high, fingerprint.low, encoded.words, 0, encoded.length);
  const explorer = new Explorer(model, options, enqueue, true, visited);
  const entry = emptyQueueEntry();
  const stopAtViolation = options.continueAfterViolation !== true;
  try {
    explorer.visitInitialStates();
    visited.resolve();
    for (let level = 0; explorer.running && frontier.upcoming > 0; level++) {
      if (stopAtViolation && explorer.violationFound) break;
      frontier.advance();
      candidateDepth = level + 1;
      while (explorer.running && frontier.shift(entry)) {
        explorer.queued = frontier.current + frontier.upcoming;
        explorer.expand(entry, level);
      }
      // Also after a stop mid-level: the candidates so far count as in memory.
      visited.resolve();
    }
    return explorer.result();
  } finally {
    frontier.close();
    visited.close();
  }
}
