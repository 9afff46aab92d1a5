/**
 * Breadth-first search on one thread: level by level, so the first violation found has a
 * shortest path. Each level is one buffer of encoded states, read by an index. A level in
 * which a violation is found is finished before the search stops, so the counts are those
 * of every worker count (explorer.ts, parallel-bfs.ts). With a checkpoint directory the
 * search writes a checkpoint between levels and may start from one (checkpoint.ts); with a
 * disk directory it keeps its visited set and frontier in files (disk-bfs.ts).
 */
import {
  CheckpointClock,
  readCheckpoint,
  writeCheckpoint,
  type Checkpoint,
} from './checkpoint.js';
import { diskBreadthFirstSearch } from './disk-bfs.js';
import { Explorer } from './explorer.js';
import { graphRecorderFor } from './graph.js';
import type { AnyModel } from './model.js';
import type { SearchOptions, SearchResult } from './search.js';
import { emptyQueueEntry, StateQueue, unknownPath } from './state-store.js';

export function breadthFirstSearch(model: AnyModel, options: SearchOptions = {}): SearchResult {
  if (options.disk) return withRebuiltPath(model, options, diskBreadthFirstSearch(model, options));
  let current = new StateQueue();
  let upcoming = new StateQueue();
  const enqueue = (id: number, words: Int32Array, start: number, end: number) =>
    upcoming.pushWords(id, words, start, end);
  const graph = graphRecorderFor(model, options);
  const explorer = new Explorer(model, options, enqueue, true, undefined, graph);
  const entry = emptyQueueEntry();
  const checkpoint = options.checkpoint;
  const resumed = checkpoint?.resume ? readCheckpoint(checkpoint) : undefined;
  if (resumed) explorer.restore(resumed);
  else explorer.visitInitialStates();
  const clock = checkpoint ? new CheckpointClock(checkpoint) : undefined;
  const stopAtViolation = options.continueAfterViolation !== true;
  for (let level = resumed?.level ?? 0; explorer.running && upcoming.count > 0; level++) {
    if (stopAtViolation && explorer.violationFound) break;
    // Between levels, before any violation: a resumed search finds it again.
    if (clock?.due() && !explorer.violationFound && level > (resumed?.level ?? 0)) {
      writeCheckpoint(checkpoint!.directory, levelCheckpoint(explorer, level, upcoming));
    }
    [current, upcoming] = [upcoming, current];
    upcoming.clear();
    while (explorer.running && current.count > 0) {
      explorer.queued = current.count + upcoming.count;
      current.shiftEntry(entry);
      explorer.expand(entry, level);
    }
  }
  return withRebuiltPath(model, options, explorer.result());
}

function levelCheckpoint(explorer: Explorer, level: number, frontier: StateQueue): Checkpoint {
  return {
    identity: explorer.options.checkpoint!.identity,
    level,
    statesGenerated: explorer.statesGenerated,
    depth: explorer.depth,
    sometimesMask: explorer.sometimesMask,
    visited: explorer.visited.fingerprints(),
    frontier: frontier.entries(),
    frontierCount: frontier.count,
  };
}

/**
 * A violation reached through a state restored from a checkpoint, or found on disk, has no
 * path: one-thread BFS in memory from the start finds the same verdict and the least shortest path (its counts, too,
 * when the search stopped at the violation's level).
 */
export function withRebuiltPath(
  model: AnyModel,
  options: SearchOptions,
  result: SearchResult,
): SearchResult {
  if (result.result !== 'violation' || result.path !== unknownPath) return result;
  const { checkpoint: _checkpoint, disk: _disk, onProgress: _progress, continueAfterViolation,
    ...rest } = options;
  const fresh = breadthFirstSearch(model, rest);
  if (!continueAfterViolation) return { ...fresh, seconds: result.seconds + fresh.seconds };
  return { ...result, invariant: fresh.invariant!, path: fresh.path! };
}
