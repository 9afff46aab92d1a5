/**
 * Seeded random simulation (TLC's -simulate, Stateright's simulation checker): walks from a
 * random initial state, choosing uniformly among the enabled actions, until a walk reaches
 * its length limit, a deadlock or the state constraint's edge. One seed drives a whole run,
 * so a run is reproducible. It samples behaviours; it never proves their absence.
 */
import { FingerprintSet } from './fingerprint-set.js';
import { fingerprint, fingerprintWords } from './fingerprint.js';
import type { AnyModel } from './model.js';
import { Clock, violatedInvariant, type SearchOptions, type SearchResult } from './search.js';
import { WordWriter } from './words.js';

export interface SimulationOptions extends SearchOptions {
  readonly seed: number;
  /** Walks to take (default 1000). */
  readonly walks?: number;
  /** Steps per walk at most (default 100). */
  readonly walkLength?: number;
}

/** mulberry32: a small, fast, well-distributed 32-bit generator; returns [0, 1). */
export function randomGenerator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function simulate(model: AnyModel, options: SimulationOptions): SearchResult {
  const clock = new Clock(options, 64);
  const random = randomGenerator(options.seed);
  const visited = new FingerprintSet();
  const view = new WordWriter();
  const walks = options.walks ?? 1000;
  const walkLength = options.walkLength ?? 100;
  const maxStates = options.maxStates ?? Infinity;
  const initialStates = model.initialStates();
  let statesGenerated = initialStates.length;
  let depth = 0;
  let stoppedBy: SearchResult['stoppedBy'];

  const remember = (state: unknown) => {
    if (model.withinBounds && !model.withinBounds(state)) return;
    view.reset();
    if (model.writeView) model.writeView(state, view);
    else model.codec.encode(state, view);
    fingerprintWords(view.words, 0, view.length);
    visited.add(fingerprint.high, fingerprint.low);
  };
  const summary = (extra: Partial<SearchResult>): SearchResult => ({
    result: 'ok',
    distinctStates: visited.size,
    statesGenerated,
    depth,
    seconds: clock.seconds,
    exhaustive: false,
    ...extra,
  });

  for (let walk = 0; walk < walks && initialStates.length > 0; walk++) {
    const initialIndex = Math.floor(random() * initialStates.length);
    let state: unknown = initialStates[initialIndex];
    const actionIndexes: number[] = [];
    for (let step = 0; ; step++) {
      remember(state);
      const invariant = violatedInvariant(model, state);
      if (invariant !== null) {
        return summary({ result: 'violation', invariant, path: { initialIndex, actionIndexes } });
      }
      if (step >= walkLength || (model.withinBounds && !model.withinBounds(state))) break;
      const actions = model.actions(state);
      const enabled: { index: number; successor: unknown }[] = [];
      actions.forEach((action, index) => {
        const successor = model.next(state, action);
        if (successor !== null) enabled.push({ index, successor });
      });
      statesGenerated += enabled.length;
      if (enabled.length === 0) break;
      const chosen = enabled[Math.floor(random() * enabled.length)]!;
      actionIndexes.push(chosen.index);
      state = chosen.successor;
      depth = Math.max(depth, actionIndexes.length);
    }
    const progress = () => ({
      statesGenerated,
      distinctStates: visited.size,
      queue: 0,
      depth,
      seconds: clock.seconds,
    });
    if (visited.size >= maxStates) stoppedBy = 'max-states';
    else if (clock.tick(progress)) stoppedBy = 'time-limit';
    if (stoppedBy) break;
  }
  return summary(stoppedBy ? { stoppedBy } : {});
}
