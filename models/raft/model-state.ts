/**
 * The state of the `raft` model: N nodes, what each has saved, the network bag, the
 * environment's budgets, and proof-only history variables that the invariants read. The model
 * instantiates Raft's command as a small number (a client value) and the snapshot's data as
 * the list of applied commands (null for a no-op), so that index k's command is data[k - 1].
 */
import type { CommittedEntry } from '../../invariants/raft-view.js';
import { entryAt, snapshotIndex, type LogHolder } from '../../spec/raft/log.js';
import type { Bag } from './network.js';
import type { Envelope, Message, Persisted, RaftNode } from '../../spec/raft/types.js';

export type ModelCommand = number;
export type ModelData = readonly (ModelCommand | null)[];
export type ModelNode = RaftNode<ModelCommand, ModelData>;
export type ModelPersisted = Persisted<ModelCommand, ModelData>;
export type ModelMessage = Message<ModelCommand, ModelData>;
export type ModelEnvelope = Envelope<ModelCommand, ModelData>;

/** The command at `index`, from the snapshot or the log; undefined beyond the log. */
export function commandAt(
  holder: LogHolder<ModelCommand, ModelData>,
  index: number,
): ModelCommand | null | undefined {
  if (index <= snapshotIndex(holder)) return holder.snapshot!.data[index - 1];
  return entryAt(holder, index)?.command;
}

/** A committed entry, recorded when a leader first commits its index. Proof-only. */
export type CommitRecord = CommittedEntry<ModelCommand>;

/** A client read not answered yet. Proof-only. */
export interface ReadRecord {
  readonly requestId: number;
  /** The highest index committed when the read arrived: the read must see it. */
  readonly floor: number;
}

export interface RaftModelState {
  readonly servers: readonly ModelNode[];
  /**
   * What each node's save effects wrote (spec/raft/persistence.ts applySave), durable or not:
   * always what the node holds, as saved.
   */
  readonly persisted: readonly ModelPersisted[];
  /**
   * What of it is durable: all a restart gets back. A step with a `beforeSends` save syncs
   * (it and everything written before become durable) before its sends; a leader's own
   * entries wait for a Sync action; a commitIndex-only hard state rides the next sync.
   */
  readonly durable: readonly ModelPersisted[];
  /**
   * Each server's application: the commands it applied, in order (index k's at k - 1), as
   * the `apply` and `restoreSnapshot` effects left it; a crash empties it and the restart's
   * effects rebuild it. Its length is the applied index.
   */
  readonly applied: readonly ModelData[];
  readonly messages: Bag;
  readonly restarts: number;
  readonly compactions: number;
  /** How many reads clients issued (at most maxReads); request ids are 1, 2, ... */
  readonly readsIssued: number;
  /** Proof-only: the reads not answered yet (an answered one leaves, to keep states few). */
  readonly readsWaiting: readonly ReadRecord[];
  /** Proof-only: set when a read was served below its floor. */
  readonly staleRead: boolean;
  /** Proof-only: elected[t] is the bit mask of servers that became leader in term t. */
  readonly elected: readonly number[];
  /** Proof-only: committed entries by index (committed[k - 1] is index k). */
  readonly committed: readonly CommitRecord[];
  /** Proof-only: set when a leader's log lost or changed an entry within its term. */
  readonly leaderLogRewritten: boolean;
  /** Proof-only (PreVote): set when an election timeout alone raised a term. */
  readonly termRaisedAlone: boolean;
  /** Proof-only (CheckQuorum): set when a node in a leader lease heeded a vote request. */
  readonly leaseBroken: boolean;
  /** Proof-only: set when a step lowered a server's commit index or applied index. */
  readonly commitRolledBack: boolean;
  /** Proof-only: set when an `apply` effect handed an entry already applied, or skipped one. */
  readonly applyOutOfOrder: boolean;
}

export interface RaftBounds {
  readonly servers: number;
  readonly values: number;
  readonly maxTerm: number;
  readonly maxLog: number;
  readonly maxMsgs: number;
  readonly maxRestarts: number;
  readonly maxCompactions: number;
  readonly maxReads: number;
}

/**
 * The state with `patch`'s fields replaced, every field written out in the interface's order:
 * one object shape for every state, which a spread of a state this wide does not give (the
 * checker's hot loop runs several times slower on spreads).
 */
export function patchState(state: RaftModelState, patch: Partial<RaftModelState>):
  RaftModelState {
  return {
    servers: patch.servers ?? state.servers,
    persisted: patch.persisted ?? state.persisted,
    durable: patch.durable ?? state.durable,
    applied: patch.applied ?? state.applied,
    messages: patch.messages ?? state.messages,
    restarts: patch.restarts ?? state.restarts,
    compactions: patch.compactions ?? state.compactions,
    readsIssued: patch.readsIssued ?? state.readsIssued,
    readsWaiting: patch.readsWaiting ?? state.readsWaiting,
    staleRead: patch.staleRead ?? state.staleRead,
    elected: patch.elected ?? state.elected,
    committed: patch.committed ?? state.committed,
    leaderLogRewritten: patch.leaderLogRewritten ?? state.leaderLogRewritten,
    termRaisedAlone: patch.termRaisedAlone ?? state.termRaisedAlone,
    leaseBroken: patch.leaseBroken ?? state.leaseBroken,
    commitRolledBack: patch.commitRolledBack ?? state.commitRolledBack,
    applyOutOfOrder: patch.applyOutOfOrder ?? state.applyOutOfOrder,
  };
}
