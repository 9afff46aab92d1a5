/**
 * Seeded random simulation (TLC's -simulate, Stateright's simulation checker): walks from a
 * random initial state, choosing uniformly among the successors inside the bounds, until a
 * walk reaches its length limit or a state with no successor inside them. A successor outside
 * the bounds is checked against the invariants, as BFS checks it, but never walked into: a
 * walk that stopped at the first such successor would rarely get deep (TLC's simulation
 * likewise only walks states that satisfy the constraint). A state with no successor at all
 * is a deadlock unless the model declares it terminal. One seed drives a whole run, so a run
 * is reproducible; `distinctStates` counts the distinct states inside the bounds it reached.
 * It samples behaviours; it never proves their absence.
 */
import { FingerprintSet } from './fingerprint-set.js';
import { fingerprint, fingerprintWords } from './fingerprint.js';
import type { AnyModel } from './model.js';
import {
  Clock,
  deadlockName,
  isDeadlock,
  violatedInvariant,
  type Path,
  type SearchOptions,
  type SearchResult,
} from './search.js';
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

interface Violation {
  readonly invariant: string;
  readonly path: Path;
}

/** What one run shares between its walks. */
class Simulation {
  readonly visited = new FingerprintSet();
  statesGenerated = 0;
  depth = 0;
  private readonly view = new WordWriter();

  constructor(
    readonly model: AnyModel,
    readonly options: SimulationOptions,
    readonly random: () => number,
  ) {}

  inBounds(state: unknown): boolean {
    return this.model.withinBounds?.(state) ?? true;
  }

  remember(state: unknown): void {
    const view = this.view;
    view.reset();
    if (this.model.writeView) this.model.writeView(state, view);
    else this.model.codec.encode(state, view);
    fingerprintWords(view.words, 0, view.length);
    this.visited.add(fingerprint.high, fingerprint.low);
  }

  /** One walk from a random initial state; a violation ends it (and the run). */
  walk(initialStates: readonly unknown[], walkLength: number): Violation | undefined {
    const model = this.model;
    const initialIndex = Math.floor(this.random() * initialStates.length);
    let state = initialStates[initialIndex];
    const actionIndexes: number[] = [];
    const path = (extra: number[] = []) => ({
      initialIndex,
      actionIndexes: [...actionIndexes, ...extra],
    });
    if (!this.inBounds(state)) {
      const invariant = violatedInvariant(model, state);
      return invariant === null ? undefined : { invariant, path: path() };
    }
    for (let step = 0; ; step++) {
      this.remember(state);
      const invariant = violatedInvariant(model, state);
      if (invariant !== null) return { invariant, path: path() };
      if (step >= walkLength) return undefined;
      const actions = model.actions(state);
      const inside: { index: number; successor: unknown }[] = [];
      let successors = 0;
      for (let index = 0; index < actions.length; index++) {
        const successor = model.next(state, actions[index]);
        if (successor === null) continue;
        successors++;
        if (this.inBounds(successor)) {
          inside.push({ index, successor });
          continue;
        }
        const outside = violatedInvariant(model, successor);
        if (outside !== null) return { invariant: outside, path: path([index]) };
      }
      this.statesGenerated += successors;
      if (successors === 0 && isDeadlock(model, state, this.options)) {
        return { invariant: deadlockName, path: path() };
      }
      if (inside.length === 0) return undefined;
      const chosen = inside[Math.floor(this.random() * inside.length)]!;
      actionIndexes.push(chosen.index);
      state = chosen.successor;
      this.depth = Math.max(this.depth, actionIndexes.length);
    }
  }
}

export function simulate(model: AnyModel, options: SimulationOptions): SearchResult {
  const clock = new Clock(options, 64);
  const simulation = new Simulation(model, options, randomGenerator(options.seed));
  const walks = options.walks ?? 1000;
  const walkLength = options.walkLength ?? 100;
  const maxStates = options.maxStates ?? Infinity;
  const initialStates = model.initialStates();
  simulation.statesGenerated = initialStates.length;
  let stoppedBy: SearchResult['stoppedBy'];
  let violation: Violation | undefined;
  const progress = () => ({
    statesGenerated: simulation.statesGenerated,
    distinctStates: simulation.visited.size,
    queue: 0,
    depth: simulation.depth,
    seconds: clock.seconds,
  });
  for (let walk = 0; walk < walks && initialStates.length > 0; walk++) {
    violation = simulation.walk(initialStates, walkLength);
    if (violation) break;
    if (simulation.visited.size >= maxStates) stoppedBy = 'max-states';
    else if (clock.tick(progress)) stoppedBy = 'time-limit';
    if (stoppedBy) break;
  }
  return {
    result: violation ? 'violation' : stoppedBy ? 'incomplete' : 'ok',
    ...(violation ? { invariant: violation.invariant, path: violation.path } : {}),
    ...(stoppedBy && !violation ? { stoppedBy } : {}),
    distinctStates: simulation.visited.size,
    statesGenerated: simulation.statesGenerated,
    depth: simulation.depth,
    seconds: clock.seconds,
    exhaustive: false,
  };
}
