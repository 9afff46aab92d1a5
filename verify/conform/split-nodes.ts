/**
 * How conform spreads the nodes over its threads (conform.ts ConformThreads): the heaviest
 * first, each to the lightest thread so far, so the threads' sums of weights (file sizes)
 * come out close; each thread's nodes in name order. The split changes only the speed: the
 * checks across nodes take the steps in one merged order whatever thread made them.
 */
import { assert } from '../../spec/assert.js';

export function splitNodes(nodes: readonly string[], weights: ReadonlyMap<string, number>,
  count: number): string[][] {
  assert(Number.isSafeInteger(count) && count >= 1, `split over ${count} threads`);
  const parts = Array.from({ length: Math.min(count, nodes.length) }, () =>
    ({ nodes: [] as string[], weight: 0 }));
  const heaviestFirst = [...nodes].sort((a, b) =>
    (weights.get(b) ?? 0) - (weights.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  for (const node of heaviestFirst) {
    let lightest = parts[0]!;
    for (const part of parts) if (part.weight < lightest.weight) lightest = part;
    lightest.nodes.push(node);
    lightest.weight += weights.get(node) ?? 0;
  }
  return parts.map((part) => part.nodes.sort());
}
