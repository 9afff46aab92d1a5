/**
 * The clients' history of a traced cluster (`cluster start --trace`): every `shardkv kv`
 * operation appends one line to DIR/traces/history.jsonl in CONTRACT's lincheck format
 * ("Histories"), with call and return read from the machine's monotonic clock (shared by
 * every process on it, so real-time order across CLI runs is exact). An operation whose
 * answer never came is recorded with outcome unknown; a refused one never took effect and
 * is not recorded. One write per line (O_APPEND): concurrent CLI runs never interleave lines.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterPaths } from './paths.js';

export const historyFileName = 'history.jsonl';

export interface HistoryOperation {
  readonly client: string;
  readonly op: 'get' | 'put' | 'append';
  readonly key: string;
  readonly value?: string;
  readonly output?: string;
  readonly call: number;
  readonly return?: number;
  readonly outcome?: 'unknown';
}

/** Microseconds on the monotonic clock (CLOCK_MONOTONIC: the same for every process). */
export function monotonicMicroseconds(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export function appendHistory(paths: ClusterPaths, operation: HistoryOperation): void {
  mkdirSync(paths.tracesDirectory, { recursive: true });
  appendFileSync(join(paths.tracesDirectory, historyFileName), JSON.stringify(operation) + '\n');
}
