/**
 * The bookkeeping every exhaustive strategy shares: the visited set, parent links, counters,
 * invariant and deadlock checks and the stop conditions. A strategy only decides the order in
 * which states are expanded (bfs.ts: a queue per level; dfs.ts: a stack).
 *
 * BFS finishes the level in which it finds a violation (`finishLevel`), so that its counts
 * and its counterexample are those the parallel search reports (parallel-bfs.ts): the
 * shallowest violation, a deadlock before an invariant violation one step deeper, and among
 * equals the one with the least path (initial-state index, then action indexes, compared in
 * order). The FIFO order of BFS reaches every state first along its least path, so the first
 * violation found at a depth is that least one.
 */
import { ok as assert } from 'node:assert';
import { CoverageCounter } from './coverage.js';
import { FingerprintSet } from './fingerprint-set.js';
import { outsideBounds, type GraphRecorder } from './graph.js';
import type { AnyModel } from './model.js';
import {
  Clock,
  deadlockName,
  isDeadlock,
  violatedInvariant,
  type Path,
  type Progress,
  type SearchOptions,
  type SearchResult,
  unreachedSometimes,
} from './search.js';
import {
  noParent, ParentTable, unknownParent, type QueueEntry,
} from './state-store.js';
import { forEachFrontierEntry, type Checkpoint } from './checkpoint.js';
import { SuccessorKind, Successors } from './successors.js';
import { WordWriter } from './words.js';

/** What visiting a successor did: a step that changed nothing, a known state, a new one. */
const enum Visit {
  Same,
  Known,
  New,
}

/** Where a newly found state, encoded as words[start, end), goes: the strategy's queue or stack. */
export type Enqueue = (
  id: number, words: Int32Array, start: number, end: number, depth: number,
) => void;

/**
 * A visited set that decides in batches (the disk mode, disk-bfs.ts): `table` holds the
 * current batch only. A state not in it goes to `candidate`, with its parent's id, action
 * index and fingerprint (just added to `table`), unchecked; the ones the batch finds new
 * come back through `admit`. Paths come from the set's own parent links (disk-parents.ts).
 */
export interface DeferredVisits {
  readonly table: FingerprintSet;
  /** Distinct states decided so far. */
  readonly size: number;
  /** Bytes held in memory, for `onFinished`. */
  readonly bytes: number;
  candidate(
    parentId: number, actionIndex: number, high: number, low: number,
    words: Int32Array, start: number, end: number,
  ): void;
  /** As ParentTable.pathTo, for a decided state (or noParent and an initial state's index). */
  pathTo(id: number, extraActionIndex?: number): Path;
}

export class Explorer {
  readonly clock: Clock;
  /** With a graph recorder, its table, which also gives a known state's id. */
  readonly visited: Pick<FingerprintSet, 'add' | 'size' | 'bytes' | 'fingerprints'>;
  readonly parents = new ParentTable();
  statesGenerated = 0;
  depth = 0;
  queued = 0;
  running = true;
  private violation: { invariant: string; path: Path; depth: number } | undefined;
  private stoppedBy: SearchResult['stoppedBy'];
  /** The encoding of the state being expanded. */
  private readonly parentWords = new WordWriter();
  /** The successors of the state being expanded (or the initial states). */
  private readonly successors: Successors;
  /** The visited set read ahead of its lookups (Successors.probe), when it can be. */
  private readonly probing: FingerprintSet | undefined;
  private readonly maxStates: number;
  private readonly coverage: CoverageCounter | undefined;
  /** Per `sometimes` property, whether a state satisfying it was reached. */
  private readonly sometimesReached: boolean[];
  private sometimesPending: number;
  /** The id of the state the last `visit` reached, or outsideBounds (for the graph). */
  private target = 0;

  constructor(
    readonly model: AnyModel,
    readonly options: SearchOptions,
    private readonly enqueue: Enqueue,
    private readonly finishLevel = false,
    private readonly deferred?: DeferredVisits,
    /** Records every edge (graph.ts); only BFS on one thread expands states in id order. */
    private readonly graph?: GraphRecorder,
  ) {
    assert(!(deferred && graph), 'a deferred visited set gives no ids to record edges with');
    this.probing = graph ? undefined : deferred?.table ?? new FingerprintSet();
    this.visited = graph?.ids ?? this.probing!;
    this.clock = new Clock(options);
    this.maxStates = options.maxStates ?? Infinity;
    this.coverage = options.coverage ? new CoverageCounter() : undefined;
    // Coverage needs each action's label: the fast path knows only action indexes.
    this.successors = new Successors(model, options.coverage === true);
    this.sometimesReached = (model.sometimes ?? []).map(() => false);
    this.sometimesPending = this.sometimesReached.length;
  }

  visitInitialStates(): void {
    this.successors.initial(this.model.initialStates());
    this.visitAll(noParent, 0, false);
  }

  /**
   * Continues from a checkpoint: its fingerprints are visited, its counts are these counts,
   * and each frontier state, under a new id of unknown parent, goes to `enqueue`.
   */
  restore(checkpoint: Checkpoint): void {
    const pairs = checkpoint.visited;
    for (let index = 0; index < pairs.length; index += 2) {
      this.visited.add(pairs[index]!, pairs[index + 1]!);
    }
    this.restoreCounts(checkpoint);
    forEachFrontierEntry(checkpoint.frontier, (words, start, end) => {
      this.enqueue(this.parents.add(unknownParent, 0), words, start, end, checkpoint.level);
    });
  }

  /** A checkpoint's counts (the disk mode restores its files itself). */
  restoreCounts(counts: Pick<Checkpoint, 'statesGenerated' | 'depth' | 'sometimesMask'>): void {
    this.statesGenerated = counts.statesGenerated;
    this.depth = counts.depth;
    this.sometimesReached.forEach((_, index) => {
      if ((counts.sometimesMask & (1 << index)) === 0) return;
      this.sometimesReached[index] = true;
      this.sometimesPending--;
    });
  }

  /** Bit i: `sometimes` property i held in some state (for a checkpoint). */
  get sometimesMask(): number {
    return this.sometimesReached.reduce((mask, reached, index) => mask | (+reached << index), 0);
  }

  /** A violation was found (BFS then stops once the level is finished). */
  get violationFound(): boolean {
    return this.violation !== undefined;
  }

  /** Decodes a queued state and visits each of its successors. */
  expand(entry: QueueEntry, depth: number): void {
    if (!this.running) return;
    const model = this.model;
    // A copy: in DFS a successor pushed onto the stack overwrites the popped entry's words.
    this.parentWords.reset();
    this.parentWords.pushWords(entry.words, entry.start, entry.end);
    const successors = this.successors;
    successors.expand(this.parentWords);
    let state = successors.state;
    const graph = this.graph;
    if (graph) {
      state ??= this.decode(this.parentWords);
      graph.expanding(entry.id, state, successors.actions ?? model.actions(state));
    }
    const complete = this.visitAll(entry.id, depth + 1, true);
    if (successors.count === 0 && complete) {
      state ??= this.decode(this.parentWords);
      if (isDeadlock(model, state, this.options)) {
        this.record(deadlockName, this.pathTo(entry.id), depth);
      }
    }
    if (this.running && this.clock.tick(this.progressNow)) this.stop('time-limit');
  }

  /**
   * Visits the successors generated (or the initial states, without edges and coverage) in
   * action order; false when the search stopped amid them.
   */
  private visitAll(parentId: number, depth: number, edges: boolean): boolean {
    const successors = this.successors;
    if (this.probing) successors.probe(this.probing);
    const graph = edges ? this.graph : undefined;
    const coverage = edges ? this.coverage : undefined;
    if (coverage) this.registerActions(coverage);
    let k = 0;
    for (; this.running && k < successors.count; k++) {
      const actionIndex = successors.actionIndexes[k]!;
      const visit = this.visit(k, parentId, actionIndex, depth);
      if (graph && visit !== Visit.Same) graph.edge(this.target, actionIndex);
      if (coverage === undefined) continue;
      const row = coverage.row(this.model.label(successors.actions![actionIndex]));
      row.enabled++;
      if (visit !== Visit.Same) row.taken++;
      if (visit === Visit.New) row.newStates++;
    }
    return k === successors.count;
  }

  /** Every action of the expanded state gets its coverage row, enabled or not. */
  private registerActions(coverage: CoverageCounter): void {
    for (const action of this.successors.actions!) coverage.row(this.model.label(action));
  }

  private decode(words: WordWriter): unknown {
    return this.successors.decoder.decode(words.words, 0, words.length);
  }

  /** The path to a state by its parent links (the deferred set's own, when deferred). */
  private pathTo(id: number, extraActionIndex?: number): Path {
    return (this.deferred ?? this.parents).pathTo(id, extraActionIndex);
  }

  /** The distinct states found: the visited set's, or the deferred set's decided ones. */
  get distinctStates(): number {
    return this.deferred ? this.deferred.size : this.visited.size;
  }

  /**
   * A candidate the deferred set found new (counted there), at `depth`, reached from
   * `parentId` by `actionIndex`: checked as a new state is in memory. The invariant and
   * `sometimes` checks see it in the same order.
   */
  admit(
    words: Int32Array, start: number, end: number, depth: number,
    parentId: number, actionIndex: number,
  ): void {
    assert(this.deferred !== undefined, 'admit serves a deferred visited set');
    if (depth > this.depth) this.depth = depth;
    if (this.violation && this.sometimesPending === 0) return;
    const state = this.successors.decoder.decode(words, start, end);
    this.checkSometimes(state);
    const invariant = this.violates(state);
    if (invariant !== null) this.record(invariant, this.pathTo(parentId, actionIndex), depth);
  }

  /** Counts, deduplicates, checks and enqueues successor k, reached by `actionIndex`. */
  private visit(k: number, parentId: number, actionIndex: number, depth: number): Visit {
    this.statesGenerated++;
    const successors = this.successors;
    const kind = successors.kinds[k]!;
    if (kind === SuccessorKind.Same) return Visit.Same;
    if (kind === SuccessorKind.Outside) {
      this.target = outsideBounds;
      const invariant = this.violates(successors.states[k]);
      if (invariant !== null) {
        this.record(invariant, this.pathTo(parentId, actionIndex), depth);
      }
      return Visit.Known;
    }
    const high = successors.highs[k]!;
    const low = successors.lows[k]!;
    if (!this.visited.add(high, low)) {
      if (this.graph) this.target = this.graph.ids.foundId;
      return Visit.Known;
    }
    const words = successors.words.words;
    const start = successors.starts[k]!;
    const end = successors.ends[k]!;
    if (this.deferred) {
      this.deferred.candidate(parentId, actionIndex, high, low, words, start, end);
      return Visit.New;
    }
    const id = this.parents.add(parentId, actionIndex);
    this.target = id;
    if (depth > this.depth) this.depth = depth;
    this.enqueue(id, words, start, end, depth);
    // On the fast path a state object is decoded only when something will read it.
    if (!this.violation || this.sometimesPending > 0 || this.graph) {
      const state = successors.stateOf(k);
      this.graph?.added(state);
      this.checkSometimes(state);
      const invariant = this.violates(state);
      if (invariant !== null) this.record(invariant, this.parents.pathTo(id), depth);
    }
    if (this.running && this.visited.size >= this.maxStates) this.stop('max-states');
    return Visit.New;
  }

  /** Marks the `sometimes` properties this new state satisfies. */
  private checkSometimes(state: unknown): void {
    if (this.sometimesPending === 0) return;
    const properties = this.model.sometimes!;
    for (let index = 0; index < properties.length; index++) {
      if (this.sometimesReached[index] || !properties[index]!.holds(state)) continue;
      this.sometimesReached[index] = true;
      this.sometimesPending--;
    }
  }

  private readonly progressNow = (): Progress => this.progress();

  progress(): Progress {
    return {
      statesGenerated: this.statesGenerated,
      distinctStates: this.distinctStates,
      queue: this.queued,
      depth: this.depth,
      seconds: this.clock.seconds,
    };
  }

  result(): SearchResult {
    this.options.onFinished?.(this.deferred?.bytes ?? this.visited.bytes + this.parents.bytes);
    const violation = this.violation;
    // Only a search of the whole bounded space shows a `sometimes` property unreached.
    const complete = !this.stoppedBy && (!violation || this.options.continueAfterViolation);
    const reached = (index: number) => this.sometimesReached[index]!;
    return {
      ...(complete && this.model.sometimes?.length
        ? { sometimesUnreached: unreachedSometimes(this.model, reached) }
        : {}),
      ...(this.coverage ? { coverage: this.coverage.rows() } : {}),
      ...(this.graph && !violation
        ? { graph: this.graph.finish(this.parents, this.statesGenerated, this.stoppedBy) }
        : {}),
      result: violation ? 'violation' : this.stoppedBy ? 'incomplete' : 'ok',
      ...(violation ? { invariant: violation.invariant, path: violation.path } : {}),
      ...(this.stoppedBy && !violation ? { stoppedBy: this.stoppedBy } : {}),
      distinctStates: this.distinctStates,
      statesGenerated: this.statesGenerated,
      depth: this.depth,
      seconds: this.clock.seconds,
      exhaustive: true,
    };
  }

  /** The invariant the state violates, when a violation there must still be reported. */
  private violates(state: unknown): string | null {
    if (this.violation) return null;
    return violatedInvariant(this.model, state);
  }

  /**
   * Keeps the first violation, or, in BFS, a shallower one (a deadlock found while expanding
   * the level whose successors broke an invariant). DFS stops at once; BFS at the level's end.
   */
  private record(invariant: string, path: Path, depth: number): void {
    const recorded = this.violation;
    if (recorded && !(this.finishLevel && depth < recorded.depth)) return;
    this.violation = { invariant, path, depth };
    if (!this.options.continueAfterViolation && !this.finishLevel) this.running = false;
  }

  /** Stops the search, incomplete (the disk search on several threads stops it from outside). */
  stop(reason: NonNullable<SearchResult['stoppedBy']>): void {
    this.stoppedBy = reason;
    this.running = false;
  }
}
