/**
 * Raft's data (Raft paper §5 and §7, Ongaro's dissertation ch. 3, 5, 6.4 and 9.6), as plain
 * immutable records: what one node holds, the messages nodes exchange, the inputs of the one
 * step function (step.ts) and the effects it asks the runtime to perform (DESIGN §2), in the
 * shape of etcd's Ready. Raft is generic: C is the application's command, S its snapshot data.
 */
import type { RaftBugs } from './bugs.js';
import type { LogEntries } from './log-entries.js';
import type { Progress } from './progress.js';

export type Role = 'follower' | 'precandidate' | 'candidate' | 'leader';

/**
 * A log entry: the term of the leader that created it and the application's command. A leader
 * appends a no-op entry (command null) when elected (dissertation §6.4), so that entries of
 * earlier terms commit with it.
 */
export interface Entry<C> {
  readonly term: number;
  readonly command: C | null;
}

export interface IndexedEntry<C> extends Entry<C> {
  readonly index: number;
}

/** A snapshot (§7): the application's state after applying entries 1..lastIncludedIndex. */
export interface Snapshot<S> {
  readonly lastIncludedIndex: number;
  readonly lastIncludedTerm: number;
  readonly data: S;
}

/** The small part of what survives a crash that changes often (etcd's HardState). */
export interface HardState {
  readonly currentTerm: number;
  readonly votedFor: number | null;
  readonly commitIndex: number;
}

/**
 * What a node's storage holds, as `load()` returns it and the `restart` input takes it: the
 * hard state, the latest snapshot (null: none yet) and the entries after the snapshot in index
 * order (entries[k] has index lastIncludedIndex + 1 + k).
 */
export interface Persisted<C, S> {
  readonly hardState: HardState;
  readonly snapshot: Snapshot<S> | null;
  readonly entries: readonly Entry<C>[];
}

/** A ReadIndex request waiting for a quorum to confirm the leader (dissertation §6.4). */
export interface PendingRead {
  readonly requestId: number;
  /** The leader's readSeq when the read arrived: a reply echoing at least it confirms it. */
  readonly sequence: number;
  /** Servers that confirmed this leader since the read arrived, as a bit mask (self set). */
  readonly acknowledged: number;
}

/** One node's whole state: what it persists plus volatile state lost on a crash. */
export interface RaftNode<C, S> {
  readonly id: number;
  /** Servers in the cluster, ids 0..clusterSize-1. */
  readonly clusterSize: number;
  readonly currentTerm: number;
  readonly votedFor: number | null;
  /**
   * The entries after the snapshot: the one at position k has index snapshotIndex + k + 1.
   * A persistent vector (log-entries.ts), read and changed through log.ts.
   */
  readonly log: LogEntries<C>;
  readonly snapshot: Snapshot<S> | null;
  readonly role: Role;
  readonly commitIndex: number;
  /** The leader of currentTerm this node knows (itself when leading), else null. */
  readonly leader: number | null;
  /** (Pre)candidates: the servers that granted a (pre-)vote, as a bit mask. */
  readonly votesGranted: number;
  /**
   * Leaders: per server, its replication progress (progress.ts: the next index to send, the
   * highest index known replicated, the flow control's state); the leader's own match is the
   * highest index its storage reported durable (`logDurable`). Empty when not leading.
   */
  readonly progress: readonly Progress[];
  /** Leaders with CheckQuorum: servers heard from since the last election timeout (mask). */
  readonly recentlyActive: number;
  /** Leaders: ReadIndex requests received in this term; AppendEntries carry it. */
  readonly readSequence: number;
  readonly pendingReads: readonly PendingRead[];
}

export type Message<C, S> =
  | {
      readonly type: 'RequestVoteRequest' | 'PreVoteRequest';
      /** For a pre-vote, the term the sender would campaign in (its term + 1). */
      readonly term: number;
      readonly lastLogIndex: number;
      readonly lastLogTerm: number;
    }
  | {
      readonly type: 'RequestVoteResponse' | 'PreVoteResponse';
      /** A granted pre-vote carries the term it was asked for. */
      readonly term: number;
      readonly voteGranted: boolean;
    }
  | {
      readonly type: 'AppendEntriesRequest';
      readonly term: number;
      readonly prevLogIndex: number;
      readonly prevLogTerm: number;
      /** Within RaftOptions.maxEntriesPerAppend and maxBytesPerAppend (none: a heartbeat). */
      readonly entries: readonly Entry<C>[];
      readonly leaderCommit: number;
      /** The leader's readSequence when sent, 0 with no read pending; the reply echoes it. */
      readonly readSequence: number;
    }
  | {
      readonly type: 'AppendEntriesResponse';
      readonly term: number;
      readonly success: boolean;
      /** On success, the index of the last entry the follower now matches. */
      readonly matchIndex: number;
      /**
       * On a mismatch (§5.3's optimisation): the term of the follower's conflicting entry (0
       * when its log is too short) and the first index it holds for that term (its last index
       * + 1 when too short), so the leader skips a whole term per round trip.
       */
      readonly conflictTerm: number;
      readonly conflictIndex: number;
      readonly readSequence: number;
    }
  | {
      readonly type: 'InstallSnapshotRequest';
      readonly term: number;
      readonly snapshot: Snapshot<S>;
    }
  | {
      readonly type: 'InstallSnapshotResponse';
      readonly term: number;
      readonly matchIndex: number;
    };

/** A message in flight. */
export interface Envelope<C, S> {
  readonly from: number;
  readonly to: number;
  readonly message: Message<C, S>;
}

/**
 * Everything that can happen to a node, all through `step` (step.ts):
 * - `message`: a message from a peer arrived.
 * - `electionTimeout`: the randomised election timer fired: a follower or candidate starts an
 *   election (a pre-vote first with PreVote); a leader with CheckQuorum steps down unless a
 *   quorum was heard from since the last one.
 * - `heartbeat`: contact `peer` (omitted: every peer): a leader sends AppendEntries (the
 *   entries its flow control lets go, progress.ts, else none as a heartbeat) or
 *   InstallSnapshot when the entries are compacted; a (pre)candidate sends its vote request
 *   to a peer that has not granted it.
 *   Nodes send requests only here: when and to whom is the environment's choice.
 * - `propose`: client commands, appended by a leader as one batch with one persist (the
 *   `proposed` effect says where); anything else refuses them (`proposalRefused`).
 * - `restart`: after a crash, from exactly what the storage holds; `node` supplies only its
 *   id and cluster size (`initialNode`).
 * - `snapshot`: the application took a snapshot of its state after applying `index`
 *   (at most the commit index): the log before it is dropped.
 * - `readIndex`: a linearizable read (§6.4): answered by `readReady` or `readRefused`.
 * - `logDurable`: the storage holds this node's log up to `index` durably, the entry there of
 *   `term` (etcd's MsgStorageAppendResp): the runtime gives it after a sync that covered a
 *   `thenReport` save (see Effect). Only then does a leader count itself toward a quorum for
 *   those entries; anything else, or a report its log no longer matches, ignores it.
 */
export type Input<C, S> =
  | { readonly type: 'message'; readonly from: number; readonly message: Message<C, S> }
  | { readonly type: 'electionTimeout' }
  | { readonly type: 'heartbeat'; readonly peer?: number }
  | { readonly type: 'propose'; readonly commands: readonly C[] }
  | { readonly type: 'restart'; readonly persisted: Persisted<C, S> }
  | { readonly type: 'snapshot'; readonly index: number; readonly data: S }
  | { readonly type: 'readIndex'; readonly requestId: number }
  | { readonly type: 'logDurable'; readonly index: number; readonly term: number };

/**
 * The timers a node runs; timers.ts says which role runs which (etcd's becomeX choosing
 * tickElection or tickHeartbeat):
 * - `election`: an `electionTimeout` input once, after a randomised timeout; the step of that
 *   input sets it again when the node's role still runs it;
 * - `heartbeat`: a `heartbeat` input (to every peer) every heartbeat interval until cancelled.
 */
export type Timer = 'election' | 'heartbeat';

/**
 * Which later effects must wait until a save is durable (etcd's MustSync, Raft dissertation
 * §3.8 and §10.2.1). A save is durable once a sync that began after it completed; a sync
 * makes durable everything buffered before it, in order, so a crash keeps a prefix of the
 * saves and never a later one without the earlier ones.
 * - `beforeSends`: no later `send`, of this step or of any later one, leaves before the save
 *   is durable: what a message reveals or acknowledges is on disk before anyone hears of it.
 *   Entries a non-leader stores (its reply acknowledges them), a changed term or vote (a vote
 *   or a term must survive a crash), a snapshot.
 * - `thenReport`: a leader's own append (its proposals, its no-op): its AppendEntries may
 *   leave before it is durable (§10.2.1). The runtime syncs it soon and then reports with a
 *   `logDurable` input; until then the leader does not count itself toward a quorum for those
 *   entries (maybeCommit), so nothing commits on a copy a crash may lose.
 * - `withNext`: nothing waits: a hard state that changes only commitIndex. It becomes
 *   durable with the next sync whatever causes it, and a crash before may lose it: a commit
 *   index is recoverable (the leader tells it again; the restart applies from what is saved).
 */
export type SyncDuty = 'beforeSends' | 'thenReport' | 'withNext';

/**
 * What a step asks the runtime to do, in list order (etcd's Ready).
 *
 * Ordering duty: the save effects (`saveSnapshot`, `saveEntries`, `saveHardState`, in that
 * order, each at most once) come first, and the runtime writes them in that order. Each says
 * by its `sync` (SyncDuty) which later effects must wait for it to be durable: the sends after
 * a `beforeSends` save, none after the others. The other effects follow and are performed in
 * list order (a runtime may hold all of a step's effects until its saves are durable; only
 * sends must wait); a kind whose place matters says so:
 * - `leadershipLost`: the node led `term` and no longer does. It comes first after the saves,
 *   before any send or apply of the step: the shell stops what only a leader does (fails
 *   the proposals it still waits for: their outcome is the log's, the clients retry; stops
 *   the migration driver) before the node applies anything as a follower.
 * - `proposed`: the `propose` input's `count` commands were appended at `index`,
 *   `index + 1`, ... with term `term`, in order. It comes before any apply of the step: the
 *   proposer learns where its command landed before that entry can apply (a one-server
 *   cluster commits it in this very step). The entry applied at one of those indexes is the
 *   proposer's exactly when its term is `term` (Log Matching); another term: another leader's.
 * - `proposalRefused`: this node does not lead: none of the input's commands was appended;
 *   `leader` is the leader it knows (null: none), where the client may go instead.
 * - `send` a message (may be dropped, like any network);
 * - `restoreSnapshot`: the application replaces its state by the snapshot's data;
 * - `apply` committed entries in index order (a no-op entry has command null: the application
 *   only advances its applied index); a committed entry is durable on a quorum already;
 * - `leaderReady`: the leader of `term` committed its own term's first entry, the no-op at
 *   `index` (dissertation §6.4). It comes right after the apply that holds that entry, so
 *   the application has applied every entry of earlier terms: what it holds is the latest
 *   committed state, and leader-only work that reads it (the migration driver) may start.
 * - `readReady`: serve read `requestId` once the application has applied `index`;
 * - `readRefused`: this node cannot serve the read (not a leader, or it lost leadership);
 * - `sendSoon`: the node has something to send: deliver a `heartbeat` input soon (one for
 *   many steps that ask in a row), to every peer, or with `peers` (a mask of some: a read's
 *   round, read-index.ts) one `heartbeat` input for each peer in it (what steps ask adds up);
 * - `setTimer`: start `timer`, or restart it from now if it runs (a follower that hears its
 *   leader restarts `election`); `cancelTimer`: stop it. Their place among the other kinds
 *   does not matter, their order among themselves does (a set then a cancel of one timer
 *   leaves it stopped). A step that changes the node's role ends with the set and cancel
 *   effects that make the running timers the new role's (timers.ts); a restart starts with
 *   none running (the process is new) and sets the follower's.
 *
 * What a save means (persistence.ts applySave: the model's disk and conform's storage model
 * compute with it, the runtime's write-ahead log implements it as records): saveHardState
 * replaces the hard state and
 * comes only when term, vote or commit index changed; saveEntries(fromIndex, entries)
 * replaces every stored entry at index >= fromIndex by `entries` (an empty list truncates);
 * saveSnapshot stores the snapshot and drops the stored entries up to its lastIncludedIndex
 * (a later saveEntries drops the others when they conflict).
 */
export type Effect<C, S> =
  | { readonly type: 'saveSnapshot'; readonly snapshot: Snapshot<S>; readonly sync: SyncDuty }
  | {
      readonly type: 'saveEntries';
      readonly fromIndex: number;
      readonly entries: readonly Entry<C>[];
      readonly sync: SyncDuty;
    }
  | { readonly type: 'saveHardState'; readonly hardState: HardState; readonly sync: SyncDuty }
  | { readonly type: 'leadershipLost'; readonly term: number }
  | {
      readonly type: 'proposed';
      readonly index: number;
      readonly term: number;
      readonly count: number;
    }
  | { readonly type: 'proposalRefused'; readonly leader: number | null }
  | { readonly type: 'send'; readonly to: number; readonly message: Message<C, S> }
  | { readonly type: 'restoreSnapshot'; readonly snapshot: Snapshot<S> }
  | { readonly type: 'apply'; readonly entries: readonly IndexedEntry<C>[] }
  | { readonly type: 'leaderReady'; readonly term: number; readonly index: number }
  | { readonly type: 'readReady'; readonly requestId: number; readonly index: number }
  | { readonly type: 'readRefused'; readonly requestId: number }
  | { readonly type: 'sendSoon'; readonly peers?: number }
  | { readonly type: 'setTimer'; readonly timer: Timer }
  | { readonly type: 'cancelTimer'; readonly timer: Timer };

/** A save effect: what the disk does (persistence.ts applySave). */
export type SaveEffect<C, S> = Extract<
  Effect<C, S>,
  { type: 'saveSnapshot' | 'saveEntries' | 'saveHardState' }
>;

/** A step's result: the new node and the effects, in the order the runtime performs them. */
export interface Step<C, S> {
  readonly node: RaftNode<C, S>;
  readonly effects: readonly Effect<C, S>[];
}

/** How a node behaves: batch size, the §9.6 features, and the bug switches. */
export interface RaftOptions {
  /** Entries per AppendEntries (default 1, raft.tla's granularity). */
  readonly maxEntriesPerAppend?: number;
  /**
   * Bytes of entries per AppendEntries (entry-bytes.ts; absent: no bound). An append holds at
   * least one entry: an entry larger than the bound goes alone.
   */
  readonly maxBytesPerAppend?: number;
  /**
   * Flow control (progress.ts, etcd's MaxInflightMsgs): appends in flight per follower while
   * streaming. Absent or 0: none, every heartbeat sends from nextIndex again (raft.tla).
   */
  readonly maxInflightAppends?: number;
  /** With flow control, the bytes in flight per follower (absent: no bound). */
  readonly maxInflightBytes?: number;
  /** Pre-vote before raising the term (§9.6). */
  readonly preVote?: boolean;
  /** Leader lease: leaders step down without a quorum, followers ignore votes (§9.6). */
  readonly checkQuorum?: boolean;
  /**
   * A read's confirmation round asks only as many followers as make a quorum, among those
   * heard from lately (read-index.ts readRoundPeers); absent: every follower.
   */
  readonly readRoundToQuorum?: boolean;
  /** The known-bug switches (bugs.ts), all off unless named. */
  readonly bugs?: RaftBugs;
}
