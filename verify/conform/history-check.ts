/**
 * Check (d) of `shardkv conform`: the clients' history (history.jsonl, CONTRACT's lincheck
 * format) must be linearizable; an undecided search is a divergence too, never a pass.
 */
import { explanationLines, lincheckText, verdictPhrase } from '../../checker/lincheck/index.js';
import { HistoryError } from '../../checker/lincheck/history.js';
import { MalformedTraceError, type Divergence } from './divergence.js';

export const historyTimeLimitSeconds = 60;

export function checkHistory(text: string): { divergence: Divergence | null;
  operations: number } {
  if (text.trim() === '') {
    // Every traced run has clients, each of which records its operations here.
    throw new MalformedTraceError('history.jsonl is empty: a traced run records every client ' +
      'operation there (leave the file out when there is no history)');
  }
  let verdict;
  try {
    verdict = lincheckText(text, { timeLimitSeconds: historyTimeLimitSeconds });
  } catch (error) {
    if (error instanceof HistoryError) {
      throw new MalformedTraceError(`history.jsonl ${error.message}`);
    }
    throw error;
  }
  if (verdict.verdict === 'linearizable') {
    return { divergence: null, operations: verdict.operations };
  }
  const lines = verdict.explanation === undefined ? [] : explanationLines(verdict.explanation);
  return {
    operations: verdict.operations,
    divergence: {
      check: 'history',
      what: verdictPhrase(verdict),
      ...(lines.length === 0 ? {} : { before: lines }),
    },
  };
}
