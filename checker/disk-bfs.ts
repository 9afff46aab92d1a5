/**
 * Breadth-first search with the visited set and the frontier in files (`check --disk DIR
 * --memory SIZE`), for state spaces beyond memory. Level by level as bfs.ts: the level's
 * states stream from one file while the states found new stream into the next
 * (disk-frontier.ts), and the visited set is a bounded batch in memory merged into a sorted
 * file (disk-fingerprint-set.ts), so memory stays under the cap whatever the state count.
 * Counts, verdict and trace are the in-memory search's: each new state's parent link goes to
 * a file of its level (disk-parents.ts), read back only to build a counterexample.
 */
import { DiskFingerprintSet, diskBudget } from './disk-fingerprint-set.js';
import { DiskFrontier } from './disk-frontier.js';
import { fingerprint } from './fingerprint.js';
import { DiskParents } from './disk-parents.js';
import { Explorer, type DeferredVisits } from './explorer.js';
import type { AnyModel } from './model.js';
import type { SearchOptions, SearchResult } from './search.js';
import { emptyQueueEntry, noParent } from './state-store.js';
import type { ByReference, Directory } from './storage.js';

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
  const parents = new DiskParents(directory, budget.streamWords);
  /** The depth of the states the batch's candidates were found at. */
  let candidateDepth = 0;
  const set = new DiskFingerprintSet(directory, budget, (parentIndex, actionIndex, words,
    start, end) => {
    parents.push(parentIndex, actionIndex);
    const parentId = parentIndex === -1 ? noParent
      : parents.levelStarts[candidateDepth - 1]! + parentIndex;
    explorer.admit(words, start, end, candidateDepth, parentId, actionIndex);
    frontier.push(words, start, end);
  });
  const visited: DeferredVisits = {
    table: set.table,
    get size() {
      return set.size;
    },
    get bytes() {
      return set.bytes;
    },
    // The explorer has just added the candidate's fingerprint to the batch's table.
    candidate: (parentId, actionIndex, encoded) => set.add(fingerprint.high, fingerprint.low,
      parents.parentIndex(parentId), actionIndex, encoded.words, 0, encoded.length),
    pathTo: (id, extraActionIndex) => parents.pathTo(id, extraActionIndex),
  };
  const explorer = new Explorer(model, options, candidatesOnly, true, visited);
  const entry = emptyQueueEntry();
  const stopAtViolation = options.continueAfterViolation !== true;
  try {
    parents.beginLevel();
    explorer.visitInitialStates();
    set.resolve();
    parents.endLevel();
    for (let level = 0; explorer.running && frontier.upcoming > 0; level++) {
      if (stopAtViolation && explorer.violationFound) break;
      frontier.advance();
      parents.beginLevel();
      candidateDepth = level + 1;
      const levelStart = parents.levelStarts[level]!;
      for (let index = 0; explorer.running && frontier.shift(entry); index++) {
        entry.id = levelStart + index;
        explorer.queued = frontier.current + frontier.upcoming;
        explorer.expand(entry, level);
      }
      // Also after a stop mid-level: the candidates so far count as in memory.
      set.resolve();
      parents.endLevel();
    }
    return explorer.result();
  } finally {
    frontier.close();
    set.close();
    parents.remove();
  }
}

/** New states go to the deferred set (`candidate`), never straight to a queue. */
function candidatesOnly(): void {
  throw new Error('the disk search takes candidates through its deferred set');
}
