/**
 * `shardkv conform`: validates recorded runtime traces against the spec (DESIGN §5,
 * issue 14). In order: (a) every node's records replay through the spec's step functions
 * (replay-node.ts); (b) the shells kept their duties (link-ledger.ts, restart-checks.ts;
 * leadership-checks.ts: the driver ran as the leadership effects say); (c) the global
 * invariants hold along a happens-before merge (global-invariants.ts); (d) the clients'
 * history is linearizable (history-check.ts). The first divergence found is the verdict;
 * among nodes, (a) reports the one of smallest Lamport clock.
 *
 * The nodes' files are read once, together, as streams merged by Lamport clock (issue 23
 * item 4; lamport-merge.ts): every record goes through (a) and the per-node checks of (b) as
 * it is read (node-stage.ts, on threads of their own for a large input: stage-thread.ts),
 * then, in the merged order of every node, through the link check and (c) here, and is then
 * dropped. What stays is what the traced nodes themselves hold (the replayed Raft logs and
 * state machines, the durable storage the restart check models), a few numbers per message
 * sent (sent-messages.ts, bounded), and the global invariants' records per term and applied
 * index.
 */
import { MalformedTraceError, type Divergence } from './divergence.js';
import { GlobalInvariants } from './global-invariants.js';
import { precedes } from './lamport-merge.js';
import { checkHistory } from './history-check.js';
import { CompactionFloors } from './compaction-floors.js';
import type { LinkStep } from './link-facts.js';
import { LinkLedger } from './link-ledger.js';
import {
  isFailure, NodeStage, type NodeStep, type NodeVerdict, type Stage,
} from './node-stage.js';
import { splitNodes } from './split-nodes.js';
import { ThreadStage, type StartStageThread } from './stage-thread.js';
import type { TraceInput } from './trace-lines.js';

export interface ConformResult {
  readonly divergence: Divergence | null;
  readonly nodes: number;
  readonly records: number;
  /** Operations in history.jsonl; null without one. */
  readonly operations: number | null;
  /** Deliveries not checked: their sends were older than the ledger keeps (sent-messages.ts). */
  readonly uncheckedDeliveries: number;
  /**
   * What the checks across records hold at the end: applied entries and state digests
   * (global-invariants.ts, bounded by compaction-floors.ts) and entries once durable
   * (restart-checks.ts); and applies seen below every replica's snapshot, not compared.
   */
  readonly retained: { readonly records: number; readonly uncompared: number };
}

/** What conform has done so far: called after every `progressEvery` records and each part. */
export type ConformProgress = (stage: string, records: number) => void;

/**
 * Threads for the per-node checks (node-stage.ts): the nodes are split over `count` of them,
 * balancing the sum of their `weights` (their files' sizes); this thread keeps the checks
 * across nodes. Without: everything on this thread. The verdict is the same either way.
 */
export interface ConformThreads {
  readonly count: number;
  readonly weights: ReadonlyMap<string, number>;
  readonly start: StartStageThread;
}

const progressEvery = 10_000;

/** The checks across nodes, fed every node's steps in the merged order. */
class AcrossNodes {
  /** node -> the clock of its last record, once the merge is past it (0: no record). */
  readonly ended = new Map<string, number>();
  readonly links: LinkLedger;
  readonly global = new GlobalInvariants();
  private readonly floors = new CompactionFloors();

  constructor(input: TraceInput) {
    this.links = new LinkLedger(input.nodes, (node) => this.ended.get(node));
  }

  next(step: NodeStep): void {
    if (step.last) this.ended.set(step.node, step.lamport);
    if (step.observations !== null) {
      for (const observation of step.observations) this.global.observe(observation);
    }
    if (step.link !== null) this.links.next(step as LinkStep);
    // What no replica of the group will be seen at again is dropped (compaction-floors.ts).
    const note = step.floor;
    if (note === null) return;
    const floor = this.floors.note(step.node, note.group, note.members, note.index);
    if (floor !== null) this.global.forgetBelow(note.group, floor);
  }
}

function stagesOf(input: TraceInput, nodes: readonly string[],
  threads: ConformThreads | undefined): Stage[] {
  if (threads === undefined || threads.count < 1) {
    return [new NodeStage(new Map(nodes.map((node) => [node, input.nodes.get(node)!])))];
  }
  return splitNodes(nodes, threads.weights, threads.count)
    .map((part) => new ThreadStage(part, threads.start));
}

/**
 * Opens every stage: a file whose first record cannot be read fails the whole input, the
 * first such in name order (as one merge of every file reads them).
 */
function open(stages: readonly Stage[], across: AcrossNodes): void {
  let failed: { failedNode: string; failure: unknown } | null = null;
  for (const stage of stages) {
    const opening = stage.open();
    if ('failedNode' in opening) {
      if (failed === null || opening.failedNode < failed.failedNode) failed = opening;
    } else {
      for (const node of opening.empty) across.ended.set(node, 0);
    }
  }
  if (failed !== null) throw failed.failure;
}

/** Every stage's steps through `across` in the merged order; how many there were. */
function mergeStages(stages: readonly Stage[], across: AcrossNodes,
  progress: ConformProgress | undefined): number {
  const heads = stages.map((stage) => stage.next());
  let records = 0;
  for (;;) {
    let least = -1;
    for (let at = 0; at < heads.length; at++) {
      const head = heads[at];
      if (head !== undefined && (least < 0 || precedes(head, heads[least]!))) least = at;
    }
    if (least < 0) return records;
    const item = heads[least]!;
    if (isFailure(item)) throw item.failure;
    heads[least] = stages[least]!.next();
    across.next(item);
    if (++records % progressEvery === 0) progress?.('reading', records);
  }
}

/** Throws MalformedTraceError on input that is not a trace (exit 2). */
export function conform(input: TraceInput, progress?: ConformProgress,
  threads?: ConformThreads): ConformResult {
  if (input.nodes.size === 0) throw new MalformedTraceError('no node trace (NODE.jsonl) found');
  const nodes = [...input.nodes.keys()].sort();
  const stages = stagesOf(input, nodes, threads);
  try {
    const across = new AcrossNodes(input);
    open(stages, across);
    const records = mergeStages(stages, across, progress);
    progress?.('read', records);
    const byNode = new Map(stages.flatMap((stage) => stage.verdicts())
      .map((verdict) => [verdict.node, verdict] as const));
    return verdict(input, nodes.map((node) => byNode.get(node)!), across, records);
  } finally {
    for (const stage of stages) stage.close();
  }
}

/** The first divergence: (a) by Lamport clock, then (b), (c) and (d) (see the top). */
function verdict(input: TraceInput, verdicts: readonly NodeVerdict[], across: AcrossNodes,
  records: number): ConformResult {
  const { links, global } = across;
  const retention = global.retention();
  const retained = { uncompared: retention.uncompared, records: retention.retained +
    verdicts.reduce((sum, { restartRetained }) => sum + restartRetained, 0) };
  const result = (divergence: Divergence | null, operations: number | null = null) =>
    ({ divergence, nodes: verdicts.length, records, operations,
      uncheckedDeliveries: links.unchecked, retained });
  const replayed = verdicts.flatMap(({ replay }) => (replay === null ? [] : [replay]));
  if (replayed.length > 0) {
    replayed.sort((a, b) => (a.lamport ?? 0) - (b.lamport ?? 0));
    return result(replayed[0]!);
  }
  const link = links.firstProblem(verdicts.map(({ node }) => node));
  if (link !== null && 'incomplete' in link) throw new MalformedTraceError(link.incomplete);
  const shell = link?.divergence ??
    verdicts.find(({ restart }) => restart !== null)?.restart ??
    verdicts.find(({ leadership }) => leadership !== null)?.leadership ??
    null;
  if (shell !== null) return result(shell);
  if (global.divergence !== null) return result(global.divergence);
  if (input.history === null) return result(null);
  const history = checkHistory(input.history);
  return result(history.divergence, history.operations);
}
