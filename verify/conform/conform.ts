/**
 * `shardkv conform`: validates recorded runtime traces against the spec (DESIGN §5,
 * issue 14). In order: (a) every node's records replay through the spec's step functions
 * (replay-node.ts); (b) the shells kept their duties (link-ledger.ts, restart-checks.ts;
 * leadership-checks.ts: the driver ran as the leadership effects say); (c) the global
 * invariants hold along a happens-before merge (global-invariants.ts); (d) the clients'
 * history is linearizable (history-check.ts). The first divergence found is the verdict;
 * among nodes, (a) reports the one of smallest Lamport clock.
 *
 * Each node's file is read once, as a stream (issue 23 item 4): every record goes through
 * (a) and the per-node checks of (b) as it is read and is then dropped; what the checks
 * across nodes need (message hashes, the observations of (c)) is all that stays.
 */
import { MalformedTraceError, type Divergence } from './divergence.js';
import { checkGlobalInvariants } from './global-invariants.js';
import { checkHistory } from './history-check.js';
import { DriverLeadershipChecker } from './leadership-checks.js';
import { LinkLedger } from './link-ledger.js';
import { readNodeTrace } from './load.js';
import type { Observation } from './observation.js';
import { NodeReplayer } from './replay-node.js';
import { RestartChecker } from './restart-checks.js';
import type { TraceInput } from './trace-lines.js';

export interface ConformResult {
  readonly divergence: Divergence | null;
  readonly nodes: number;
  readonly records: number;
  /** Operations in history.jsonl; null without one. */
  readonly operations: number | null;
}

/** What conform has done so far: called after every `progressEvery` records and each part. */
export type ConformProgress = (stage: string, records: number) => void;

const progressEvery = 10_000;

interface NodeVerdicts {
  readonly replay: Divergence | null;
  readonly restarts: Divergence | null;
  readonly leadership: Divergence | null;
}

/** Throws MalformedTraceError on input that is not a trace (exit 2). */
export function conform(input: TraceInput, progress?: ConformProgress): ConformResult {
  if (input.nodes.size === 0) throw new MalformedTraceError('no node trace (NODE.jsonl) found');
  const nodes = [...input.nodes.keys()].sort();
  const links = new LinkLedger();
  const observations: Observation[] = [];
  const verdicts: NodeVerdicts[] = [];
  let records = 0;
  for (const node of nodes) {
    const replayer = new NodeReplayer(node);
    const restarts = new RestartChecker();
    const leadership = new DriverLeadershipChecker();
    const link = links.reader(node);
    for (const record of readNodeTrace(node, input.nodes.get(node)!)) {
      replayer.next(record);
      restarts.next(record);
      leadership.next(record);
      link(record);
      if (++records % progressEvery === 0) progress?.(`reading ${node}`, records);
    }
    for (const observation of replayer.observations) observations.push(observation);
    verdicts.push({ replay: replayer.divergence, restarts: restarts.divergence,
      leadership: leadership.divergence });
  }
  const result = (divergence: Divergence | null, operations: number | null = null) =>
    ({ divergence, nodes: nodes.length, records, operations });
  const replayed = verdicts.flatMap(({ replay }) => (replay === null ? [] : [replay]));
  if (replayed.length > 0) {
    replayed.sort((a, b) => (a.lamport ?? 0) - (b.lamport ?? 0));
    return result(replayed[0]!);
  }
  const shell = links.check(input.nodes) ??
    verdicts.find(({ restarts }) => restarts !== null)?.restarts ??
    verdicts.find(({ leadership }) => leadership !== null)?.leadership ?? null;
  if (shell !== null) return result(shell);
  progress?.('shell checks done', records);
  const global = checkGlobalInvariants(observations);
  progress?.('global invariants done', records);
  if (global !== null) return result(global);
  if (input.history === null) return result(null);
  const history = checkHistory(input.history);
  return result(history.divergence, history.operations);
}
