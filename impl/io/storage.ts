/**
 * A Raft node's durable state (Raft paper §5.2 Figure 2 "persistent state on all servers", §7
 * snapshots), as the node shell sees it. Writes buffer in memory; `sync()` makes everything
 * buffered since the last sync durable with one group commit, in call order. A crash before a
 * sync's promise resolves keeps a prefix of what was buffered (possibly nothing): whole calls,
 * except that of an appendEntries call it may keep only the first entries. Never part of an
 * entry, never a later call without every earlier one. The calls mean what spec/raft's save
 * effects mean (persistence.ts applySave); the types are spec/raft's.
 */

import type { Entry, HardState, Persisted, Snapshot } from '../../spec/raft/types.js';

/**
 * What `load()` returns: spec/raft's Persisted (the hard state, `{ currentTerm: 0, votedFor:
 * null, commitIndex: 0 }` when none was ever saved; the snapshot; the entries after it, a no-op
 * with command null) and where the entries start.
 */
export interface LoadedState<C, S> extends Persisted<C, S> {
  /** `snapshot.lastIncludedIndex + 1`, or 1 without a snapshot: `entries[i]` has that + i. */
  readonly firstIndex: number;
}

export interface StorageSizes {
  /** Bytes of log kept (segments on disk plus records buffered for the next sync). */
  readonly logBytes: number;
  /** Bytes of the latest snapshot (0 without one). */
  readonly snapshotBytes: number;
}

export interface Storage<C, S> {
  /** Reads what the last incarnation made durable. Call it once, before anything else. */
  load(): Promise<LoadedState<C, S>>;
  /** Buffers a new hard state (one equal to the last saved is not written again). */
  saveHardState(hardState: HardState): void;
  /**
   * Buffers `entries` at indexes `fromIndex, fromIndex + 1, ...`, replacing every stored entry
   * at an index >= fromIndex: with no entries this truncates the log. fromIndex must lie after
   * the snapshot and at most one past the last entry.
   */
  appendEntries(fromIndex: number, entries: readonly Entry<C>[]): void;
  /**
   * Buffers a snapshot; entries up to its lastIncludedIndex may then be dropped. Entries after it
   * are kept: when the snapshot conflicts with them (Raft §7, InstallSnapshot), also call
   * `appendEntries(lastIncludedIndex + 1, [])`.
   */
  saveSnapshot(snapshot: Snapshot<S>): void;
  /**
   * Group commit: one durable write for everything buffered since the last sync. Syncs run one
   * after another: a call made while one runs covers what was buffered since that one began.
   * After a failed write or fsync every later call fails too (restart from load()).
   * `blocking`: the caller waits for nothing else meanwhile (a follower's append before its
   * answer), so the writes may block its thread instead of going through a thread pool.
   */
  sync(blocking?: boolean): Promise<void>;
  sizes(): StorageSizes;
  /** Syncs what is buffered, then releases files. The storage is unusable afterwards. */
  close(): Promise<void>;
}
