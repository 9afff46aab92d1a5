/**
 * A closed-loop load (each client sends its next request when the previous one answered, as
 * etcd's benchmark tool and YCSB do): the same harness drives shardkv and etcd, so their
 * figures come from one method. Latency percentiles are over every completed operation.
 */
import { performance } from 'node:perf_hooks';

/** An operation that got no answer before its deadline: it may or may not have taken effect. */
export class UnknownOutcome extends Error {}

/** What became of an operation that did not answer ok. */
export const missedKind = (error: unknown): 'unknown' | 'failed' =>
  error instanceof UnknownOutcome ? 'unknown' : 'failed';

/**
 * One client's operation number `iteration`; rejects when the system failed it (with an
 * UnknownOutcome when it did not answer before the deadline).
 */
export type Operation = (client: number, iteration: number) => Promise<void>;

export interface LoadFigures {
  readonly clients: number;
  readonly operations: number;
  readonly failures: number;
  /** Operations with no answer before their deadline (warm-up included). */
  readonly unknown: number;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Every operation answered, the warm-up's too. */
  readonly answeredIncludingWarmup: number;
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

/** Runs `clients` loops of `operation` for `seconds` (after `warmupSeconds` not counted). */
export async function closedLoop(
  clients: number,
  seconds: number,
  operation: Operation,
  warmupSeconds = 1,
): Promise<LoadFigures> {
  const latencies: number[] = [];
  let failures = 0;
  let unknown = 0;
  let answered = 0;
  const start = performance.now();
  const measureFrom = start + warmupSeconds * 1000;
  const end = measureFrom + seconds * 1000;
  const loop = async (client: number) => {
    for (let iteration = 0; performance.now() < end; iteration++) {
      const sent = performance.now();
      let missed: 'unknown' | 'failed' | null = null;
      try {
        await operation(client, iteration);
      } catch (error) {
        missed = missedKind(error);
      }
      if (missed === null) answered++;
      if (missed === 'unknown') unknown++;
      if (sent < measureFrom) continue;
      if (missed === 'failed') failures++;
      else if (missed === null) latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, client) => loop(client)));
  const sorted = Float64Array.from(latencies).sort();
  return {
    clients,
    operations: sorted.length,
    failures,
    unknown,
    opsPerSec: sorted.length / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    answeredIncludingWarmup: answered,
  };
}
