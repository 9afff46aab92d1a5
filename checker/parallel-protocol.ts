/**
 * Messages between the parallel BFS coordinator and its workers, and the layout of the shared
 * control block: word 0 is the stop reason for a limit or a failure (any worker may set it;
 * a violation stops the search only at the end of its level), word 1 is set once any
 * invariant or deadlock violation is seen, word 2 has bit i set once `sometimes` property i
 * held. From word 16, on a cache line of their own, the words with which the workers meet
 * within a level (bfs-worker.ts): a growth of the visited set requested, workers arrived
 * at a meeting, meetings held, workers done with the level, an event count that a waiting
 * worker sleeps on, and the fingerprints a growth in parts left over. From word 32, four words per worker, written by that worker: states
 * generated, distinct states it inserted, queue length, depth; then one claim cursor per
 * worker into that worker's frontier, which any worker advances (work stealing).
 */
import type { ModelSource } from './load-model.js';
import type { Params } from './model.js';

export const enum StopReason {
  None = 0,
  MaxStates = 2,
  TimeLimit = 3,
  /** A worker failed (a model that throws): the others stop at their next chunk. */
  Failed = 4,
}

export const violationWord = 1;
export const sometimesWord = 2;
/** `sometimes` properties a parallel search tracks: one bit each in a word. */
export const sometimesMax = 31;

/** Non-zero: a worker found the visited set 85 % full; every worker stops to grow it. */
export const growWord = 16;
/** Workers arrived at a meeting (a growth's steps); the last to arrive lets all go on. */
export const arrivedWord = 17;
/** Meetings held: the waiting workers sleep until it moves. */
export const meetingsWord = 18;
/** Workers that have claimed every chunk of the level; the coordinator resets it. */
export const doneWord = 19;
/** Moves when a growth is requested or a worker is done: what a done worker sleeps on. */
export const eventWord = 20;
/** Fingerprints the parts of a growth between levels left to `addAll` (usually none). */
export const leftWord = 21;
const countersWord = 32;

export function controlWords(workerCount: number): number {
  return countersWord + workerCount * 5;
}

export function counterWord(worker: number): number {
  return countersWord + worker * 4;
}

export function cursorWord(workerCount: number, worker: number): number {
  return countersWord + workerCount * 4 + worker;
}

export interface WorkerSetup {
  readonly model: ModelSource;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly workerIndex: number;
  readonly workerCount: number;
  readonly control: Int32Array;
  /** The visited set every worker inserts into (shared-fingerprint-set.ts). */
  readonly visited: SharedArrayBuffer;
  /** 0: no limit. */
  readonly maxStates: number;
  /** 0: no limit. */
  readonly deadlineEpochMs: number;
  /** Report states without successors that the model does not declare terminal. */
  readonly deadlock: boolean;
}

/**
 * A worker's frontier in shared memory, which any worker may expand: the owner's queue
 * words and each state's entry offset in them.
 */
export interface Frontier {
  readonly words: Int32Array;
  readonly offsets: Int32Array;
}

export type CoordinatorMessage =
  | {
      readonly type: 'level';
      readonly level: number;
      /** Every worker's frontier: its own first, then the unclaimed rest of the others'. */
      readonly frontiers: readonly Frontier[];
      /** False once a violation is recorded and the search goes on (--continue). */
      readonly checkViolations: boolean;
      /**
       * The capacity in slots the workers grow the visited set to, together, before they
       * expand the level (the coordinator's prediction); no larger than now: no growth.
       */
      readonly growTo: number;
    };

export type WorkerMessage =
  | { readonly type: 'ready' }
  | {
      readonly type: 'level-done';
      /** States of the next level this worker holds. */
      readonly upcoming: number;
      readonly frontier: Frontier;
    }
  /** The worker's error, as fields: a thrown ModelError is rethrown as one by the parent. */
  | {
      readonly type: 'failed';
      readonly name: string;
      readonly message: string;
      readonly stack: string;
    };
