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
 * item 4; lamport-merge.ts): every record goes through (a), the per-node checks of (b), the
 * link check and (c) as it is read, and is then dropped. What stays is what the traced
 * nodes themselves hold (the replayed Raft logs and state machines, the durable storage the
 * restart check models), a few numbers per message sent (sent-messages.ts, bounded), and the
 * global invariants' records per term and applied index.
 */
import { MalformedTraceError, type Divergence } from './divergence.js';
import { GlobalInvariants } from './global-invariants.js';
import { LamportMerge } from './lamport-merge.js';
import { checkHistory } from './history-check.js';
import { DriverLeadershipChecker } from './leadership-checks.js';
import { CompactionFloors } from './compaction-floors.js';
import { LinkLedger } from './link-ledger.js';
import { readNodeTrace } from './load.js';
import { groupName, type Observation } from './observation.js';
import { NodeReplayer } from './replay-node.js';
import { RestartChecker } from './restart-checks.js';
import type { TraceInput } from './trace-lines.js';
import type { TraceRecord } from '../../impl/trace/schema.js';

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

const progressEvery = 10_000;

/** The checks of one node, fed its records in order. */
class NodeChecks {
  readonly replayer: NodeReplayer;
  readonly restarts = new RestartChecker();
  readonly leadership = new DriverLeadershipChecker();

  constructor(node: string, observe: (observation: Observation) => void) {
    this.replayer = new NodeReplayer(node, observe);
  }

  next(record: TraceRecord): void {
    this.replayer.next(record);
    this.restarts.next(record);
    this.leadership.next(record);
  }
}

/** Tells the global invariants what no replica of the record's group will be seen at again. */
function forgetCompacted(floors: CompactionFloors, global: GlobalInvariants,
  record: TraceRecord, checks: NodeChecks, ended: boolean): void {
  const setup = checks.replayer.setup;
  if (setup === null) return;
  const group = groupName(setup.gid);
  const floor = floors.note(record.node, group, setup.peers,
    ended ? Infinity : checks.restarts.durableSnapshotIndex);
  if (floor !== null) global.forgetBelow(group, floor);
}

/** Throws MalformedTraceError on input that is not a trace (exit 2). */
export function conform(input: TraceInput, progress?: ConformProgress): ConformResult {
  if (input.nodes.size === 0) throw new MalformedTraceError('no node trace (NODE.jsonl) found');
  const nodes = [...input.nodes.keys()].sort();
  const merge = new LamportMerge(new Map(nodes.map((node) =>
    [node, readNodeTrace(node, input.nodes.get(node)!)] as const)));
  const links = new LinkLedger(input.nodes, (node) => merge.endOf(node));
  const global = new GlobalInvariants();
  const checks = new Map(nodes.map((node) => [node, new NodeChecks(node, global.observe)]));
  const floors = new CompactionFloors();
  let records = 0;
  for (let record = merge.next(); record !== undefined; record = merge.next()) {
    const node = checks.get(record.node)!;
    node.next(record);
    links.next(record);
    forgetCompacted(floors, global, record, node, merge.endOf(record.node) !== undefined);
    if (++records % progressEvery === 0) progress?.('reading', records);
  }
  progress?.('read', records);
  const verdicts = nodes.map((node) => checks.get(node)!);
  const retention = global.retention();
  const retained = { uncompared: retention.uncompared, records: retention.retained +
    verdicts.reduce((sum, { restarts }) => sum + restarts.retained, 0) };
  const result = (divergence: Divergence | null, operations: number | null = null) =>
    ({ divergence, nodes: nodes.length, records, operations,
      uncheckedDeliveries: links.unchecked, retained });
  const replayed = verdicts.flatMap(({ replayer }) =>
    (replayer.divergence === null ? [] : [replayer.divergence]));
  if (replayed.length > 0) {
    replayed.sort((a, b) => (a.lamport ?? 0) - (b.lamport ?? 0));
    return result(replayed[0]!);
  }
  const link = links.firstProblem(nodes);
  if (link !== null && 'incomplete' in link) throw new MalformedTraceError(link.incomplete);
  const shell = link?.divergence ??
    verdicts.find(({ restarts }) => restarts.divergence !== null)?.restarts.divergence ??
    verdicts.find(({ leadership }) => leadership.divergence !== null)?.leadership.divergence ??
    null;
  if (shell !== null) return result(shell);
  if (global.divergence !== null) return result(global.divergence);
  if (input.history === null) return result(null);
  const history = checkHistory(input.history);
  return result(history.divergence, history.operations);
}
