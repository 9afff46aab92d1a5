/**
 * Messages between the parallel BFS coordinator and its workers, and the layout of the shared
 * control block: word 0 is the stop reason for a limit (any worker may set it; a violation
 * stops the search only at the end of its level), word 1 the global count of
 * distinct states (for --max-states); then four words per worker, written by that worker:
 * states generated, distinct states, queue length, depth.
 */
import type { ModelSource } from './load-model.js';
import type { MessagePort } from 'node:worker_threads';
import type { Params } from './model.js';

export const enum StopReason {
  None = 0,
  MaxStates = 2,
  TimeLimit = 3,
}

export const distinctWord = 1;

export function controlWords(workerCount: number): number {
  return 4 + workerCount * 4;
}

export interface WorkerSetup {
  readonly model: ModelSource;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly workerIndex: number;
  readonly workerCount: number;
  readonly control: Int32Array;
  /** 0: no limit. */
  readonly maxStates: number;
  /** 0: no limit. */
  readonly deadlineEpochMs: number;
  /** Report states without successors that the model does not declare terminal. */
  readonly deadlock: boolean;
}

export type CoordinatorMessage =
  | { readonly type: 'connect'; readonly peers: readonly { peer: number; port: MessagePort }[] }
  | {
      readonly type: 'level';
      readonly level: number;
      /** Every worker's sorted keys of the level to expand (level-order.ts); none at 0. */
      readonly sortedKeys: readonly Float64Array[];
      /** False once a violation is recorded and the search goes on (--continue). */
      readonly checkViolations: boolean;
    }
  | { readonly type: 'parent'; readonly id: number };

export interface FoundViolation {
  readonly invariant: string;
  /** A deadlocked state of the level expanded, one step shallower than any invariant's. */
  readonly deadlock: boolean;
  /** Its key in the canonical order (level-order.ts): the least wins. */
  readonly key: number;
  /** The violating state's global id, or its parent's when `extraAction` is set. */
  readonly stateId: number;
  /** Set when the violating state lies outside the bounds and so has no id of its own. */
  readonly extraAction?: number;
}

/** The lesser of two violations of one level: a deadlock (one step shallower), else by key. */
export function leastViolation(
  candidate: FoundViolation,
  recorded: FoundViolation | undefined,
): FoundViolation {
  if (recorded === undefined) return candidate;
  if (candidate.deadlock !== recorded.deadlock) return candidate.deadlock ? candidate : recorded;
  return candidate.key < recorded.key ? candidate : recorded;
}

export type WorkerMessage =
  | { readonly type: 'ready' }
  | {
      readonly type: 'level-done';
      readonly upcoming: number;
      /** This worker's keys of the level it built, sorted, in shared memory. */
      readonly sortedKeys: Float64Array;
      /** The least violation this worker found while expanding the level. */
      readonly violation?: FoundViolation;
    }
  | { readonly type: 'parent'; readonly parent: number; readonly action: number }
  | { readonly type: 'failed'; readonly message: string };

/** Between workers: batches of successors for their owner, then an end-of-level mark. */
export type PeerMessage =
  | { readonly type: 'batch'; readonly words: Int32Array; readonly length: number }
  | { readonly type: 'end' };
