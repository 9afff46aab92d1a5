/**
 * The runtime trace format (DESIGN §5 Tracing, issue 14; documented in traces/README.md): one
 * JSON object per line and per actor step of one node, in the node's own order. Every record
 * carries the node's sequence number (continued across restarts), its incarnation, and a
 * Lamport clock that every frame between nodes carries too, so that `shardkv conform` can
 * merge the nodes' traces in an order consistent with happens-before without a global clock.
 */

export const traceVersion = 1;

/** The actors of one node: the Raft step, the replica state machine, the migration driver,
 * and `shell` for what the shell itself reports (a completed sync). */
export type TraceActor = 'raft' | 'machine' | 'driver' | 'shell';

export interface TraceRecord {
  readonly v: number;
  readonly node: string;
  /** 1, 2, ... over the node's whole life, restarts included. */
  readonly seq: number;
  /** 1 for the first start, one more for every restart. */
  readonly inc: number;
  readonly lamport: number;
  readonly actor: TraceActor;
  readonly input: unknown;
  readonly effects: readonly unknown[];
  /** The actor's state digest after the step (state-digest.ts); absent for `shell`. */
  readonly digest?: string;
  /** On a restart record: what the spec needs to replay this node. */
  readonly setup?: NodeSetup;
}

/** How to run the spec for one node: its Raft id, its peers, its state machine. */
export interface NodeSetup {
  readonly peers: readonly string[];
  readonly id: number;
  /** null: a controller replica. */
  readonly gid: number | null;
  readonly shardCount: number;
  readonly raftOptions: {
    readonly maxEntriesPerAppend: number;
    /** Flow control's bounds (spec RaftOptions); absent in older traces: none. */
    readonly maxBytesPerAppend?: number;
    readonly maxInflightAppends?: number;
    readonly maxInflightBytes?: number;
    readonly preVote: boolean;
    readonly checkQuorum: boolean;
    /** A read's round to a quorum's followers only; absent in older traces: off. */
    readonly readRoundToQuorum?: boolean;
  };
  /** The group's size policy (spec/group/size-policy.ts); absent in older traces: none. */
  readonly maxValueBytes?: number;
}

/** Where a node's last record left its counters (a new incarnation continues from them). */
export interface TracePosition {
  readonly seq: number;
  readonly inc: number;
  readonly lamport: number;
}

export const tracePositionStart: TracePosition = { seq: 0, inc: 0, lamport: 0 };

/** Message ids: unique across a node's restarts since they name the incarnation. */
export function messageId(node: string, incarnation: number, counter: number): string {
  return `${node}:${incarnation}:${counter}`;
}
