/**
 * The KV linearizability check behind `shardkv lincheck`: parse a history, search it per key,
 * and explain a failure as the longest linearizable prefix of the failing key plus the
 * operation that cannot follow it.
 */
import { checkOperations, statesAlong, type CheckReport } from './check.js';
import { parseHistory, type HistoryOperation } from './history.js';
import {
  createKeyValueModel, keyValueOperations, StringTable, type KeyValueInput,
} from './kv-model.js';
import type { PartitionVerdict, UnknownReason } from './search.js';

export interface ExplainedOperation {
  readonly line: number;
  readonly description: string;
}

export interface Explanation {
  readonly key: string;
  /** The longest linearizable prefix of the key's operations, in linearization order. */
  readonly prefix: readonly ExplainedOperation[];
  /** The key's value after the prefix, JSON-quoted. */
  readonly state: string;
  /** Present when not linearizable: the operation the model rejects after the prefix. */
  readonly failing?: ExplainedOperation;
  /** How many of the key's operations there are in all. */
  readonly keyOperations: number;
}

export interface LincheckResult {
  readonly verdict: PartitionVerdict;
  /** When unknown: the time limit ran out, or the search reached its memory bound. */
  readonly reason?: UnknownReason;
  /** The key that decided a not-linearizable or unknown verdict. */
  readonly key?: string;
  readonly operations: number;
  readonly keys: number;
  readonly seconds: number;
  readonly explanation?: Explanation;
  readonly history: readonly HistoryOperation[];
  readonly report: CheckReport<KeyValueInput, string>;
  readonly strings: StringTable;
}

export interface LincheckOptions {
  readonly timeLimitSeconds: number;
  /** The search's memory bound (default searchBytesMax). */
  readonly bytesMax?: number;
}

/**
 * The search tables' bound: an undecided history's memo table grew to 2.6-3.1 GiB of RSS in
 * 60 s (issue 23 item 4), and conform must stay under 1 GiB. Reaching it is `unknown`, never
 * another verdict. The corpus's hardest history (c50-ok) needs a few MiB.
 */
export const searchBytesMax = 384 * 2 ** 20;

/**
 * A verdict other than linearizable in words, for the simulator's and conform's reports:
 * "the history is unknown (the search reached its memory bound) on key "k"".
 */
export function verdictPhrase(result: Pick<LincheckResult, 'verdict' | 'reason' | 'key'>): string {
  const why = result.reason === 'memory-bound' ? ' (the search reached its memory bound)'
    : result.reason === 'time-limit' ? ' (the time limit ran out)' : '';
  const key = result.key === undefined ? '' : ` on key ${JSON.stringify(result.key)}`;
  return `the history is ${result.verdict}${why}${key}`;
}

/** Throws HistoryError (with the line) when the text is not a valid history. */
export function lincheckText(text: string, options: LincheckOptions): LincheckResult {
  const started = performance.now();
  return lincheckHistory(parseHistory(text), options, started);
}

export function lincheckHistory(
  history: readonly HistoryOperation[],
  options: LincheckOptions,
  started = performance.now(),
): LincheckResult {
  const strings = new StringTable();
  const model = createKeyValueModel(strings);
  const operations = keyValueOperations(history, strings);
  const report = checkOperations(model, operations, { deadline: started +
    options.timeLimitSeconds * 1000, bytesMax: options.bytesMax ?? searchBytesMax });
  const deciding = report.decidingPartition === undefined
    ? undefined : report.partitions[report.decidingPartition]!;
  let explanation: Explanation | undefined;
  if (deciding?.result) {
    const { prefix, failing } = deciding.result;
    const describe = (index: number): ExplainedOperation => {
      const operation = deciding.operations[index]!;
      return { line: history[operation.id]!.line, description: model.describeOperation(operation) };
    };
    const states = statesAlong(model, deciding.operations, prefix);
    explanation = {
      key: deciding.name,
      prefix: prefix.map(describe),
      state: model.describeState(states.at(-1) ?? model.init()),
      ...(failing === undefined ? {} : { failing: describe(failing) }),
      keyOperations: deciding.operations.length,
    };
  }
  const reason = report.verdict === 'unknown' ? deciding?.result?.reason : undefined;
  return {
    verdict: report.verdict,
    ...(reason === undefined ? {} : { reason }),
    ...(deciding ? { key: deciding.name } : {}),
    operations: history.length,
    keys: report.partitions.length,
    seconds: (performance.now() - started) / 1000,
    ...(explanation ? { explanation } : {}),
    history,
    report,
    strings,
  };
}

/** The explanation as lines of text; `limit` caps the prefix lines shown (the last ones). */
export function explanationLines(explanation: Explanation, limit = 20): string[] {
  const { key, prefix, state, failing, keyOperations } = explanation;
  const lines = [`key ${JSON.stringify(key)}: the longest linearizable prefix has `
    + `${prefix.length} of its ${keyOperations} operations:`];
  const shown = prefix.slice(Math.max(0, prefix.length - limit));
  if (shown.length < prefix.length) lines.push(`  ... ${prefix.length - shown.length} earlier`);
  const offset = prefix.length - shown.length;
  shown.forEach((operation, index) => {
    lines.push(`  ${offset + index + 1}. line ${operation.line}: ${operation.description}`);
  });
  lines.push(`after it the key holds ${state}`);
  if (failing) {
    lines.push(`and this operation cannot follow: line ${failing.line}: ${failing.description}`);
  }
  return lines;
}
