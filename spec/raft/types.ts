/**
 * Raft's data (Raft paper §5 and §7, Ongaro's dissertation ch. 3 and 5), as plain immutable
 * records: what one server holds, the messages servers exchange, and the effects a step asks
 * the runtime to perform (DESIGN §2: effects are data, the runtime performs them in order).
 */

export type Role = 'follower' | 'candidate' | 'leader';

/** A log entry: the term of the leader that created it and the client's value. */
export interface Entry {
  readonly term: number;
  readonly value: number;
}

/**
 * A snapshot (§7): the state machine after applying entries 1..lastIncludedIndex. The
 * abstract state machine is the sequence of applied values, so `values[k - 1]` is the value
 * of entry k; lastIncludedTerm is the term of entry lastIncludedIndex.
 */
export interface Snapshot {
  readonly lastIncludedIndex: number;
  readonly lastIncludedTerm: number;
  readonly values: readonly number[];
}

/** What survives a crash (§5.1 and §7): written by `persist` effects before any send. */
export interface HardState {
  readonly currentTerm: number;
  readonly votedFor: number | null;
  /** The entries after the snapshot: log[k] has index snapshot.lastIncludedIndex + k + 1. */
  readonly log: readonly Entry[];
  readonly snapshot: Snapshot;
}

/** One server's whole state: its hard state plus volatile state lost on a crash. */
export interface RaftServer extends HardState {
  readonly id: number;
  /** Servers in the cluster, ids 0..clusterSize-1. */
  readonly clusterSize: number;
  readonly role: Role;
  readonly commitIndex: number;
  /** Candidates: the set of servers that granted a vote in currentTerm, as a bit mask. */
  readonly votesGranted: number;
  /** Leaders: per server, the next index to send and the highest index known replicated. */
  readonly nextIndex: readonly number[];
  readonly matchIndex: readonly number[];
}

export type Message =
  | {
      readonly type: 'RequestVoteRequest';
      readonly term: number;
      readonly lastLogIndex: number;
      readonly lastLogTerm: number;
    }
  | { readonly type: 'RequestVoteResponse'; readonly term: number; readonly voteGranted: boolean }
  | {
      readonly type: 'AppendEntriesRequest';
      readonly term: number;
      readonly prevLogIndex: number;
      readonly prevLogTerm: number;
      /** At most one entry in the model (raft.tla's granularity). */
      readonly entries: readonly Entry[];
      readonly leaderCommit: number;
    }
  | {
      readonly type: 'AppendEntriesResponse';
      readonly term: number;
      readonly success: boolean;
      /** On success, the index of the last entry the follower now matches. */
      readonly matchIndex: number;
    }
  | { readonly type: 'InstallSnapshotRequest'; readonly term: number; readonly snapshot: Snapshot }
  | {
      readonly type: 'InstallSnapshotResponse';
      readonly term: number;
      readonly matchIndex: number;
    };

/** A message in flight. */
export interface Envelope {
  readonly from: number;
  readonly to: number;
  readonly message: Message;
}

export type Timer = 'election' | 'heartbeat';

/**
 * What a step asks the runtime to do, in list order. Ordering duty (as etcd's Ready): every
 * `persist` precedes the `send`s of the same step, so a vote or an entry is on disk before
 * anyone hears of it. `apply` hands committed entries (or a snapshot) to the state machine.
 */
export type Effect =
  | { readonly type: 'persist'; readonly state: HardState }
  | { readonly type: 'send'; readonly to: number; readonly message: Message }
  | { readonly type: 'apply'; readonly entries: readonly IndexedEntry[] }
  | { readonly type: 'restoreSnapshot'; readonly snapshot: Snapshot }
  | { readonly type: 'setTimer'; readonly timer: Timer };

export interface IndexedEntry extends Entry {
  readonly index: number;
}

/** A step's result: the new state and the effects, in the order the runtime performs them. */
export interface Step {
  readonly server: RaftServer;
  readonly effects: readonly Effect[];
}

/** Known-bug switches (DESIGN §3): each off unless named. */
export interface RaftOptions {
  /** Commit an entry of an earlier term by counting replicas (Raft paper, Figure 8). */
  readonly commitPrevTerm?: boolean;
  /** Grant votes without the candidate-log-up-to-date check (§5.4.1). */
  readonly voteIgnoresLog?: boolean;
  /** Do not persist votedFor: a restarted server may vote twice in one term. */
  readonly forgetVoteOnRestart?: boolean;
}
