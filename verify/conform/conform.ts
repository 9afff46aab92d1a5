/**
 * `shardkv conform`: validates recorded runtime traces against the spec (DESIGN §5,
 * issue 14). In order: (a) every node's records replay through the spec's step functions
 * (replay-node.ts); (b) the shells kept their duties (shell-checks.ts; leadership-checks.ts:
 * the driver ran as the leadership effects say); (c) the global invariants hold along a
 * happens-before merge (global-invariants.ts); (d) the clients' history is linearizable
 * (history-check.ts). The first divergence found is the verdict; among nodes, (a) reports
 * the one of smallest Lamport clock.
 */
import type { Divergence } from './divergence.js';
import { checkGlobalInvariants } from './global-invariants.js';
import { checkHistory } from './history-check.js';
import { parseTraces, type TraceFiles } from './load.js';
import type { Observation } from './observation.js';
import { replayNode } from './replay-node.js';
import { checkDriverLeadership } from './leadership-checks.js';
import { checkLinks, checkRestarts } from './shell-checks.js';

export interface ConformResult {
  readonly divergence: Divergence | null;
  readonly nodes: number;
  readonly records: number;
  /** Operations in history.jsonl; null without one. */
  readonly operations: number | null;
}

/** What conform has done so far: the checks report as they finish each part. */
export type ConformProgress = (stage: string, records: number, total: number) => void;

/** Throws MalformedTraceError on input that is not a trace (exit 2). */
export function conform(files: TraceFiles, progress?: ConformProgress): ConformResult {
  const traces = parseTraces(files);
  let records = 0;
  for (const list of traces.values()) records += list.length;
  const result = (divergence: Divergence | null, operations: number | null = null) =>
    ({ divergence, nodes: traces.size, records, operations });
  const replayed: Divergence[] = [];
  const observations: Observation[] = [];
  let replayedRecords = 0;
  for (const [node, list] of traces) {
    const outcome = replayNode(node, list);
    replayedRecords += list.length;
    progress?.(`replayed ${node}`, replayedRecords, records);
    if (outcome.divergence !== null) replayed.push(outcome.divergence);
    observations.push(...outcome.observations);
  }
  if (replayed.length > 0) {
    replayed.sort((a, b) => (a.lamport ?? 0) - (b.lamport ?? 0));
    return result(replayed[0]!);
  }
  const shell = checkLinks(traces) ??
    [...traces.values()].map(checkRestarts).find((found) => found !== null) ??
    [...traces.values()].map(checkDriverLeadership).find((found) => found !== null) ?? null;
  if (shell !== null) return result(shell);
  progress?.('shell checks done', records, records);
  const global = checkGlobalInvariants(observations);
  progress?.('global invariants done', records, records);
  if (global !== null) return result(global);
  if (files.history === null) return result(null);
  const history = checkHistory(files.history);
  return result(history.divergence, history.operations);
}
