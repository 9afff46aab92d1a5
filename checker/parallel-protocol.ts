/**
 * Messages between the parallel BFS coordinator and its workers, and the layout of the shared
 * control block: word 0 is the stop reason (any worker may set it), word 1 the global count of
 * distinct states (for --max-states); then four words per worker, written by that worker:
 * states generated, distinct states, queue length, depth.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Params } from './model.js';

export const enum StopReason {
  None = 0,
  Violation = 1,
  MaxStates = 2,
  TimeLimit = 3,
}

export const distinctWord = 1;

export function controlWords(workerCount: number): number {
  return 4 + workerCount * 4;
}

export interface WorkerSetup {
  readonly model: string;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly workerIndex: number;
  readonly workerCount: number;
  readonly control: Int32Array;
  /** 0: no limit. */
  readonly maxStates: number;
  /** 0: no limit. */
  readonly deadlineEpochMs: number;
  readonly continueAfterViolation: boolean;
}

export type CoordinatorMessage =
  | { readonly type: 'connect'; readonly peers: readonly { peer: number; port: MessagePort }[] }
  | { readonly type: 'level'; readonly level: number }
  | { readonly type: 'parent'; readonly id: number };

export interface FoundViolation {
  readonly invariant: string;
  /** The violating state's global id, or its parent's when `extraAction` is set. */
  readonly stateId: number;
  /** Set when the violating state lies outside the bounds and so has no id of its own. */
  readonly extraAction?: number;
}

export type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'level-done'; readonly upcoming: number; readonly violation?: FoundViolation }
  | { readonly type: 'parent'; readonly parent: number; readonly action: number }
  | { readonly type: 'failed'; readonly message: string };

/** Between workers: batches of successors for their owner, then an end-of-level mark. */
export type PeerMessage =
  | { readonly type: 'batch'; readonly words: Int32Array; readonly length: number }
  | { readonly type: 'end' };
