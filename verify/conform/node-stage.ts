/**
 * The per-node part of `shardkv conform` (issue 23 item 4): some nodes' files read, parsed and
 * merged by Lamport clock, every record through that node's checks ((a) the replay, and of
 * (b) the restart and driver-leadership checks), and handed on as a NodeStep: the record's
 * place, what the link check reads of it (link-facts.ts), the facts the global invariants
 * read (observations) and its group's compaction floor when it moved. The checks across nodes
 * (conform.ts) take the steps of every stage in the merged order. A stage runs on the
 * caller's thread or on a thread of its own (stage-thread.ts); either way the nodes' state
 * stays there, and what crosses is the steps.
 */
import type { TraceActor, TraceRecord } from '../../impl/trace/schema.js';
import type { Divergence } from './divergence.js';
import { LamportMerge, type MergeKey } from './lamport-merge.js';
import { DriverLeadershipChecker } from './leadership-checks.js';
import { linkFacts, type LinkFacts } from './link-facts.js';
import { readNodeTrace } from './load.js';
import { groupName, type Observation } from './observation.js';
import { NodeReplayer } from './replay-node.js';
import { RestartChecker } from './restart-checks.js';
import type { TraceSource } from './trace-lines.js';

/** A node's durable snapshot index (Infinity at its last record), as the floors take it. */
export interface FloorNote {
  readonly group: string;
  readonly members: readonly string[];
  readonly index: number;
}

/** One record, as the checks across nodes take it. */
export interface NodeStep extends MergeKey {
  readonly seq: number;
  readonly inc: number;
  readonly actor: TraceActor;
  /** The node's last record: its trace ends here. */
  readonly last: boolean;
  readonly link: LinkFacts | null;
  /** What the replay of the record observed, in order (null: nothing). */
  readonly observations: readonly Observation[] | null;
  /** The node's floor when it changed at this record (compaction-floors.ts). */
  readonly floor: FloorNote | null;
}

/**
 * A read or a check that threw, where the merge would have handed over the record it was at
 * (conform throws it there). `error` is the thrown value, or its name and message once it
 * crossed from a thread.
 */
export interface StageFailure extends MergeKey {
  readonly failure: unknown;
}

export type StageItem = NodeStep | StageFailure;

export const isFailure = (item: StageItem): item is StageFailure => 'failure' in item;

/** A stage's start: the nodes whose files hold no record, or the first one that failed. */
export type StageOpening =
  | { readonly empty: readonly string[] }
  | { readonly failedNode: string; readonly failure: unknown };

/** What the per-node checks found, once every record went by. */
export interface NodeVerdict {
  readonly node: string;
  readonly replay: Divergence | null;
  readonly restart: Divergence | null;
  readonly leadership: Divergence | null;
  /** Entries the restart check remembers as once durable. */
  readonly restartRetained: number;
}

/** Some nodes' steps, in the merged order of those nodes. */
export interface Stage {
  open(): StageOpening;
  /** The next item; undefined once every node's records went by. */
  next(): StageItem | undefined;
  verdicts(): readonly NodeVerdict[];
  close(): void;
}

/** The checks of one node, fed its records in order. */
class NodeChecks {
  readonly replayer: NodeReplayer;
  readonly restarts = new RestartChecker();
  readonly leadership = new DriverLeadershipChecker();
  observed: Observation[] | null = null;
  /** The floor index last handed on (undefined: none yet). */
  floorSent: number | undefined;

  constructor(node: string) {
    this.replayer = new NodeReplayer(node, (observation) => {
      (this.observed ??= []).push(observation);
    });
  }

  next(record: TraceRecord): void {
    this.replayer.next(record);
    this.restarts.next(record);
    this.leadership.next(record);
  }

  /** The floor as of this record, when it changed. */
  floor(last: boolean): FloorNote | null {
    const setup = this.replayer.setup;
    if (setup === null) return null;
    const index = last ? Infinity : this.restarts.durableSnapshotIndex;
    if (index === this.floorSent) return null;
    this.floorSent = index;
    return { group: groupName(setup.gid), members: setup.peers, index };
  }
}

/** A stage on the caller's thread (and the body of a stage thread). */
export class NodeStage implements Stage {
  private readonly merge: LamportMerge;
  private readonly checks: Map<string, NodeChecks>;
  private done = false;

  /** @param sources the stage's nodes, in name order */
  constructor(private readonly sources: ReadonlyMap<string, TraceSource>) {
    this.merge = new LamportMerge(new Map([...sources].map(([node, source]) =>
      [node, readNodeTrace(node, source)] as const)));
    this.checks = new Map([...sources.keys()].map((node) => [node, new NodeChecks(node)]));
  }

  open(): StageOpening {
    try {
      this.merge.open();
    } catch (failure) {
      this.done = true;
      return { failedNode: this.merge.failedAt!.node, failure };
    }
    return { empty: [...this.sources.keys()].filter((node) => this.merge.endOf(node) === 0) };
  }

  next(): StageItem | undefined {
    if (this.done) return undefined;
    let record: TraceRecord | undefined;
    try {
      record = this.merge.next();
    } catch (failure) {
      this.done = true;
      const { node, lamport } = this.merge.failedAt!;
      return { node, lamport: lamport!, failure };
    }
    if (record === undefined) {
      this.done = true;
      return undefined;
    }
    try {
      return this.step(record);
    } catch (failure) {
      this.done = true;
      return { node: record.node, lamport: record.lamport, failure };
    }
  }

  private step(record: TraceRecord): NodeStep {
    const checks = this.checks.get(record.node)!;
    checks.next(record);
    const observations = checks.observed;
    checks.observed = null;
    const last = this.merge.endOf(record.node) !== undefined;
    const { node, seq, inc, lamport, actor } = record;
    return { node, seq, inc, lamport, actor, last, link: linkFacts(record), observations,
      floor: checks.floor(last) };
  }

  verdicts(): NodeVerdict[] {
    return [...this.checks].map(([node, { replayer, restarts, leadership }]) => ({
      node, replay: replayer.divergence, restart: restarts.divergence,
      leadership: leadership.divergence, restartRetained: restarts.retained,
    }));
  }

  close(): void {
    this.done = true;
  }
}
