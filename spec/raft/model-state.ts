/**
 * The state of the `raft` model: N servers, what each has persisted, the network bag, the
 * environment's budgets, and proof-only history variables that the invariants read.
 */
import type { Bag } from './network.js';
import type { HardState, RaftServer } from './types.js';

/** A committed entry, recorded when a leader first commits its index. Proof-only. */
export interface CommitRecord {
  readonly index: number;
  readonly term: number;
  readonly value: number;
  /** The leader's term when it committed the entry. */
  readonly inTerm: number;
}

export interface RaftModelState {
  readonly servers: readonly RaftServer[];
  /** What each server's `persist` effects wrote: all a restart gets back. */
  readonly persisted: readonly HardState[];
  readonly messages: Bag;
  readonly restarts: number;
  readonly compactions: number;
  /** Proof-only: elected[t] is the bit mask of servers that became leader in term t. */
  readonly elected: readonly number[];
  /** Proof-only: committed entries by index (committed[k - 1] is index k). */
  readonly committed: readonly CommitRecord[];
  /** Proof-only: set when a leader's log lost or changed an entry within its term. */
  readonly leaderLogRewritten: boolean;
}

export interface RaftBounds {
  readonly servers: number;
  readonly values: number;
  readonly maxTerm: number;
  readonly maxLog: number;
  readonly maxMsgs: number;
  readonly maxRestarts: number;
  readonly maxCompactions: number;
}
