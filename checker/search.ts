/**
 * What every search strategy shares: options, the result, invariant checks and the clock.
 *
 * Counting follows TLC: `statesGenerated` counts every successor computed (initial states
 * included); `distinctStates` counts the distinct states inside the state constraint. A
 * successor outside the constraint is checked against the invariants but neither counted nor
 * explored. `depth` is the largest number of steps from an initial state to an explored state
 * (TLC prints this plus one).
 */
import type { CheckpointOptions } from './checkpoint.js';
import type { DiskOptions } from './disk-bfs.js';
import type { ActionCoverage } from './coverage.js';
import type { StateGraph } from './graph.js';
import type { SwarmSummary } from './swarm.js';
import type { AnyModel } from './model.js';

export interface SearchOptions {
  /** Stop (result `incomplete`) once this many distinct states are found. */
  readonly maxStates?: number;
  /** Stop (result `incomplete`) after this many seconds. */
  readonly timeLimitSeconds?: number;
  /**
   * Report a reachable state with no successor at all (inside or outside the bounds) that
   * the model does not declare terminal, as TLC does; the invariant is named "Deadlock".
   * Default true.
   */
  readonly deadlock?: boolean;
  /** Keep exploring after a violation, reporting the first one found (TLC's -continue). */
  readonly continueAfterViolation?: boolean;
  /** Called every `progressIntervalMs` with the running figures. */
  readonly onProgress?: (progress: Progress) => void;
  readonly progressIntervalMs?: number;
  /**
   * Called once when a search ends, while its tables are still alive (memory figures), with
   * the bytes of its visited set and parent links (the parallel search's: its shared visited
   * set; its workers keep no parent links).
   */
  readonly onFinished?: (storedBytes: number) => void;
  /** Set element 0 to non-zero (Atomics) from another thread to stop as at the time limit. */
  readonly stopFlag?: Int32Array;
  /** Write checkpoints between levels and/or start from one (bfs only; checkpoint.ts). */
  readonly checkpoint?: CheckpointOptions;
  /** Keep the visited set and the frontier in files (bfs on one thread; disk-bfs.ts). */
  readonly disk?: DiskOptions;
  /** Count, per action, enabled, taken and new states (coverage.ts); one thread only. */
  readonly coverage?: boolean;
  /**
   * Keep every edge for the liveness pass (graph.ts): one-thread BFS gives `graph` when it
   * finds no violation. Ignored by the other strategies, on a resumed search and on a model
   * with a symmetry view (the pass then builds the graph itself).
   */
  readonly recordGraph?: boolean;
}

export interface Progress {
  readonly statesGenerated: number;
  readonly distinctStates: number;
  readonly queue: number;
  readonly depth: number;
  readonly seconds: number;
}

/** A behaviour: an initial state's index, then action indexes into `actions(state)`. */
export interface Path {
  readonly initialIndex: number;
  readonly actionIndexes: readonly number[];
}

export interface SearchResult {
  readonly result: 'ok' | 'violation' | 'incomplete';
  readonly invariant?: string;
  readonly path?: Path;
  readonly distinctStates: number;
  readonly statesGenerated: number;
  readonly depth: number;
  readonly seconds: number;
  /** Why an `incomplete` search stopped. */
  readonly stoppedBy?: 'max-states' | 'time-limit';
  /** False for random simulation, which samples behaviours and never exhausts the space. */
  readonly exhaustive: boolean;
  /**
   * The model's `sometimes` properties no explored state satisfied; set only when the
   * search explored the whole bounded space (a stopped search proves nothing unreached).
   */
  readonly sometimesUnreached?: readonly string[];
  /** A swarm's seeds (swarm.ts). */
  readonly swarm?: SwarmSummary;
  /** With `coverage`: one row per action. */
  readonly coverage?: readonly ActionCoverage[];
  /** With `recordGraph` (bfs on one thread, no violation): the explored state graph. */
  readonly graph?: StateGraph;
}

/** Names of the `sometimes` properties not in `reached`, when the search was complete. */
export function unreachedSometimes(
  model: AnyModel,
  reached: (index: number) => boolean,
): readonly string[] {
  return (model.sometimes ?? []).filter((_, index) => !reached(index)).map((p) => p.name);
}

/** The name under which a deadlock is reported. */
export const deadlockName = 'Deadlock';

/** Whether a state without successors is a deadlock to report under these options. */
export function isDeadlock(model: AnyModel, state: unknown, options: SearchOptions): boolean {
  if (options.deadlock === false) return false;
  return !(model.isTerminal?.(state) ?? false);
}

/** The name of the first invariant the state violates, or null. */
export function violatedInvariant(model: AnyModel, state: unknown): string | null {
  if (model.invariantsHold?.(state) === true) return null;
  for (const invariant of model.invariants) {
    if (!invariant.holds(state)) return invariant.name;
  }
  return null;
}

/** Checks the clock only every `stride` calls: `performance.now()` is not free. */
export class Clock {
  private readonly started = performance.now();
  private readonly deadline: number;
  private nextProgress: number;
  private calls = 0;

  constructor(
    private readonly options: SearchOptions,
    private readonly stride = 1024,
  ) {
    const limit = options.timeLimitSeconds;
    this.deadline = limit === undefined ? Infinity : this.started + limit * 1000;
    this.nextProgress = this.started + (options.progressIntervalMs ?? 3000);
  }

  get seconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** True when the time limit has passed; reports progress when it is due. */
  tick(progress: () => Progress): boolean {
    if (++this.calls % this.stride !== 0) return false;
    const now = performance.now();
    if (this.options.onProgress && now >= this.nextProgress) {
      this.nextProgress = now + (this.options.progressIntervalMs ?? 3000);
      this.options.onProgress(progress());
    }
    const stopFlag = this.options.stopFlag;
    return now >= this.deadline || (stopFlag !== undefined && Atomics.load(stopFlag, 0) !== 0);
  }
}
