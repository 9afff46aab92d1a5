/**
 * The bookkeeping every exhaustive strategy shares: the visited set, parent links, counters,
 * invariant checks and the stop conditions. A strategy only decides the order in which
 * states are expanded (bfs.ts: a queue per level; dfs.ts: a stack).
 */
import { FingerprintSet } from './fingerprint-set.js';
import { fingerprint, fingerprintWords } from './fingerprint.js';
import type { AnyModel } from './model.js';
import {
  Clock,
  violatedInvariant,
  type Path,
  type Progress,
  type SearchOptions,
  type SearchResult,
} from './search.js';
import { noParent, ParentTable, type QueueEntry } from './state-store.js';
import { WordReader, WordWriter } from './words.js';

/** Where a newly found state goes: the strategy's queue or stack. */
export type Enqueue = (id: number, encoded: WordWriter, depth: number) => void;

export class Explorer {
  readonly clock: Clock;
  readonly visited = new FingerprintSet();
  readonly parents = new ParentTable();
  statesGenerated = 0;
  depth = 0;
  queued = 0;
  running = true;
  private violation: { invariant: string; path: Path } | undefined;
  private stoppedBy: SearchResult['stoppedBy'];
  private readonly encoded = new WordWriter();
  private readonly view = new WordWriter();
  private readonly reader = new WordReader(new Int32Array(0));
  private readonly maxStates: number;

  constructor(
    readonly model: AnyModel,
    private readonly options: SearchOptions,
    private readonly enqueue: Enqueue,
  ) {
    this.clock = new Clock(options);
    this.maxStates = options.maxStates ?? Infinity;
  }

  visitInitialStates(): void {
    this.model.initialStates().forEach((state, index) => {
      if (this.running) this.visit(state, noParent, index, 0);
    });
  }

  /** Decodes a queued state and visits each of its successors. */
  expand(entry: QueueEntry, depth: number): void {
    const model = this.model;
    const reader = this.reader;
    reader.words = entry.words;
    reader.position = entry.start;
    reader.end = entry.end;
    const state = model.codec.decode(reader);
    const parentId = entry.id;
    const actions = model.actions(state);
    for (let index = 0; this.running && index < actions.length; index++) {
      const successor = model.next(state, actions[index]);
      if (successor !== null) this.visit(successor, parentId, index, depth + 1);
    }
    if (this.running && this.clock.tick(this.progressNow)) this.stop('time-limit');
  }

  /** Counts, deduplicates, checks and enqueues one generated state. */
  visit(state: unknown, parentId: number, actionIndex: number, depth: number): void {
    this.statesGenerated++;
    const model = this.model;
    if (model.withinBounds && !model.withinBounds(state)) {
      if (this.violates(state)) this.record(state, this.parents.pathTo(parentId, actionIndex));
      return;
    }
    const encoded = this.encoded;
    encoded.reset();
    model.codec.encode(state, encoded);
    let view = encoded;
    if (model.writeView) {
      view = this.view;
      view.reset();
      model.writeView(state, view);
    }
    fingerprintWords(view.words, 0, view.length);
    if (!this.visited.add(fingerprint.high, fingerprint.low)) return;
    const id = this.parents.add(parentId, actionIndex);
    if (depth > this.depth) this.depth = depth;
    this.enqueue(id, encoded, depth);
    if (this.violates(state)) this.record(state, this.parents.pathTo(id));
    if (this.running && this.visited.size >= this.maxStates) this.stop('max-states');
  }

  private readonly progressNow = (): Progress => this.progress();

  progress(): Progress {
    return {
      statesGenerated: this.statesGenerated,
      distinctStates: this.visited.size,
      queue: this.queued,
      depth: this.depth,
      seconds: this.clock.seconds,
    };
  }

  result(): SearchResult {
    this.options.onFinished?.();
    const violation = this.violation;
    return {
      result: violation ? 'violation' : this.stoppedBy ? 'incomplete' : 'ok',
      ...(violation ? { invariant: violation.invariant, path: violation.path } : {}),
      ...(this.stoppedBy && !violation ? { stoppedBy: this.stoppedBy } : {}),
      distinctStates: this.visited.size,
      statesGenerated: this.statesGenerated,
      depth: this.depth,
      seconds: this.clock.seconds,
      exhaustive: true,
    };
  }

  /** Whether the state violates an invariant that must still be reported. */
  private violates(state: unknown): boolean {
    if (this.violation && this.options.continueAfterViolation) return false;
    return violatedInvariant(this.model, state) !== null;
  }

  private record(state: unknown, path: Path): void {
    this.violation = { invariant: violatedInvariant(this.model, state)!, path };
    if (!this.options.continueAfterViolation) this.running = false;
  }

  private stop(reason: NonNullable<SearchResult['stoppedBy']>): void {
    this.stoppedBy = reason;
    this.running = false;
  }
}
