/**
 * Breadth-first search with the visited set and the frontier in files (`check --disk DIR
 * --memory SIZE`), for state spaces beyond memory. Level by level as bfs.ts: the level's
 * states stream from one file while the states found new stream into the next
 * (disk-frontier.ts), and the visited set is a bounded batch in memory merged into a sorted
 * file (disk-fingerprint-set.ts), so memory stays under the cap whatever the state count.
 * Counts, verdict and trace are the in-memory search's: each new state's parent link goes to
 * a file of its level (disk-parents.ts), read back only to build a counterexample.
 */
import { CheckpointClock, checkpointFileName } from './checkpoint.js';
import {
  readDiskCheckpoint,
  removeDiskCheckpoint,
  slotFiles,
  writeDiskCheckpoint,
  type DiskCheckpoint,
} from './disk-checkpoint.js';
import { DiskFingerprintSet, diskBudget, type NewState } from './disk-fingerprint-set.js';
import { DiskFrontier } from './disk-frontier.js';
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
  const search = new DiskSearch(model, options);
  let finished = false;
  try {
    const result = search.run();
    finished = result.result !== 'incomplete';
    return result;
  } finally {
    search.close(finished);
  }
}

/**
 * One disk search: its files, its explorer and its last checkpoint. A level's states are
 * expanded here (`run`) or on worker threads (disk-parallel.ts, which reads the frontier and
 * hands the successors to `set` in the order one thread generates them).
 */
export class DiskSearch {
  private readonly directory: Directory;
  readonly frontier: DiskFrontier;
  readonly parents: DiskParents;
  readonly set: DiskFingerprintSet;
  readonly explorer: Explorer;
  /** The depth of the states the batch's candidates were found at. */
  private candidateDepth = 0;
  private readonly entry = emptyQueueEntry();

  private lastCheckpoint: DiskCheckpoint | undefined;
  /** The level the search resumed at, if it did. */
  private readonly resumedLevel: number | undefined;
  private readonly clock: CheckpointClock | undefined;

  constructor(model: AnyModel, private readonly options: SearchOptions) {
    const checkpoint = options.checkpoint;
    this.lastCheckpoint = checkpoint?.resume
      ? readDiskCheckpoint(checkpoint, checkpointFileName)
      : undefined;
    this.clock = checkpoint && new CheckpointClock(checkpoint);
    const { directory, memoryBytes } = options.disk!;
    this.directory = directory;
    const budget = diskBudget(memoryBytes);
    const resumed = this.lastCheckpoint;
    this.resumedLevel = resumed?.level;
    this.frontier = new DiskFrontier(directory, budget.streamWords,
      resumed && { file: resumed.frontierFile, count: resumed.frontierCount });
    this.parents = new DiskParents(directory, budget.streamWords, resumed?.levelStarts);
    this.set = new DiskFingerprintSet(directory, budget, this.admit,
      resumed && { file: resumed.visitedFile, size: resumed.distinctStates });
    const { set, parents } = this;
    const visited: DeferredVisits = {
      table: set.table,
      get size() {
        return set.size;
      },
      get bytes() {
        return set.bytes;
      },
      // The explorer has just added the candidate's fingerprint to the batch's table.
      candidate: (parentId, actionIndex, high, low, words, start, end) =>
        set.add(high, low, parents.parentIndex(parentId), actionIndex, words, start, end),
      pathTo: (id, extraActionIndex) => parents.pathTo(id, extraActionIndex),
    };
    this.explorer = new Explorer(model, options, candidatesOnly, true, visited);
    if (resumed) this.explorer.restoreCounts(resumed);
  }

  run(): SearchResult {
    for (let level = this.start(); this.beginLevel(level); level++) {
      this.expandHere(level);
      this.endLevel();
    }
    return this.explorer.result();
  }

  /** Expands the level's states on this thread. */
  expandHere(level: number): void {
    const { explorer, frontier, entry } = this;
    const levelStart = this.parents.levelStarts[level]!;
    for (let index = 0; explorer.running && frontier.shift(entry); index++) {
      entry.id = levelStart + index;
      explorer.queued = frontier.current + frontier.upcoming;
      explorer.expand(entry, level);
    }
  }

  /** The first level to expand: 0 once the initial states are in, or a checkpoint's. */
  start(): number {
    if (this.resumedLevel !== undefined) return this.resumedLevel;
    this.parents.beginLevel();
    this.explorer.visitInitialStates();
    this.endLevel();
    return 0;
  }

  /**
   * Whether `level` is to be expanded (not once stopped, past a violation or out of states);
   * if so, writes a checkpoint when due and makes its states the frontier read.
   */
  beginLevel(level: number): boolean {
    const { explorer, frontier, set } = this;
    if (!explorer.running || frontier.upcoming === 0) return false;
    if (this.options.continueAfterViolation !== true && explorer.violationFound) return false;
    // Between levels, before any violation: a resumed search finds it again.
    const due = this.clock?.due() && !explorer.violationFound && level > (this.resumedLevel ?? 0);
    const slot = this.lastCheckpoint?.slot === 0 ? 1 : 0;
    const pinned = due ? slotFiles(slot) : undefined;
    const visitedFile = pinned && set.pin(pinned.visited);
    const count = frontier.upcoming;
    frontier.advance(pinned?.frontier);
    if (pinned) this.checkpoint(level, slot, visitedFile!, pinned.frontier, count);
    this.parents.beginLevel();
    this.candidateDepth = level + 1;
    return true;
  }

  /** Decides the level's last batch; also after a stop mid-level (its candidates count). */
  endLevel(): void {
    this.set.resolve();
    this.parents.endLevel();
  }

  /** Removes the working files; a stopped search keeps its checkpoint, to be resumed. */
  close(finished: boolean): void {
    this.frontier.close();
    this.set.close();
    if (this.lastCheckpoint !== undefined && !finished) {
      this.parents.endLevel();
      return;
    }
    // The manifest first: a crash while the rest goes leaves no checkpoint that names it.
    if (this.options.checkpoint) removeDiskCheckpoint(this.directory);
    this.parents.remove();
  }

  /** A new state: its link, its checks, then the next level's frontier. */
  private readonly admit: NewState = (parentIndex, actionIndex, words, start, end) => {
    const { parents, candidateDepth } = this;
    parents.push(parentIndex, actionIndex);
    const parentId = parentIndex === -1 ? noParent
      : parents.levelStarts[candidateDepth - 1]! + parentIndex;
    this.explorer.admit(words, start, end, candidateDepth, parentId, actionIndex);
    this.frontier.push(words, start, end);
  };

  private checkpoint(
    level: number, slot: 0 | 1, visitedFile: string, frontierFile: string, frontierCount: number,
  ): void {
    const explorer = this.explorer;
    const checkpoint: DiskCheckpoint = {
      identity: this.options.checkpoint!.identity,
      level,
      statesGenerated: explorer.statesGenerated,
      depth: explorer.depth,
      sometimesMask: explorer.sometimesMask,
      slot,
      distinctStates: this.set.size,
      visitedFile,
      frontierFile,
      frontierCount,
      levelStarts: [...this.parents.levelStarts],
    };
    writeDiskCheckpoint(this.directory, checkpoint, this.lastCheckpoint);
    this.lastCheckpoint = checkpoint;
  }
}

/** New states go to the deferred set (`candidate`), never straight to a queue. */
function candidatesOnly(): void {
  throw new Error('the disk search takes candidates through its deferred set');
}
