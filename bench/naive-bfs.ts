/**
 * The naive baseline the issue compares against: BFS with JSON strings of whole states in a
 * `Set<string>` and an array queue read by an index. Same model, same counts; only the
 * bookkeeping differs.
 */
import type { AnyModel } from '../checker/model.js';

export function naiveBreadthFirstSearch(model: AnyModel): { distinct: number; generated: number } {
  const seen = new Set<string>();
  const queue: unknown[] = [];
  let generated = 0;
  for (const state of model.initialStates()) {
    generated++;
    const key = JSON.stringify(state);
    if (!seen.has(key)) {
      seen.add(key);
      queue.push(state);
    }
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head];
    for (const action of model.actions(state)) {
      const next = model.next(state, action);
      if (next === null) continue;
      generated++;
      const key = JSON.stringify(next);
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push(next);
      for (const invariant of model.invariants) {
        if (!invariant.holds(next)) throw new Error(`naive BFS: ${invariant.name} violated`);
      }
    }
  }
  return { distinct: seen.size, generated };
}
