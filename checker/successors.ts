/**
 * The successors of one state, generated all at once before any is looked up: the one
 * expansion loop of every exhaustive search (explorer.ts on one thread, bfs-worker.ts on
 * several). Each successor is classified (the parent again, outside the state constraint, or
 * one to look up), encoded into one buffer and fingerprinted; the caller then walks them in
 * action order, so counts, checks and counterexamples are those of a loop that visits each
 * as it is generated.
 *
 * Why a batch: the visited set's lookups miss the cache (a table of tens of MiB), and one
 * lookup after each successor's generation waits for its miss alone; `probe` reads every
 * home slot of the batch first, so that the misses overlap (the raft.tla preset spent 2.1 s
 * of 14.7 in the set's `add`).
 */
import { fingerprint, fingerprintWords } from './fingerprint.js';
import type { AnyModel } from './model.js';
import { WordReader, WordWriter } from './words.js';

/** What a generated successor is. */
export const enum SuccessorKind {
  /** The parent itself (a step that changes nothing): a known state. */
  Same,
  /** Outside the state constraint: checked against the invariants, never stored. */
  Outside,
  /** To look up in the visited set: encoded, with its fingerprint. */
  Inside,
}

/** Where the words of `model`'s states come from, read back as state objects. */
export class StateDecoder {
  private readonly reader = new WordReader(new Int32Array(0));

  constructor(private readonly model: AnyModel) {}

  decode(words: Int32Array, start: number, end: number): unknown {
    const reader = this.reader;
    reader.words = words;
    reader.position = start;
    reader.end = end;
    return this.model.codec.decode(reader);
  }
}

export class Successors {
  /** Successors generated (enabled actions, or initial states). */
  count = 0;
  kinds = new Uint8Array(64);
  actionIndexes = new Int32Array(64);
  highs = new Int32Array(64);
  lows = new Int32Array(64);
  /** An Inside successor's encoding is words.words[starts[k], ends[k]). */
  starts = new Int32Array(64);
  ends = new Int32Array(64);
  /** The successor objects; undefined from the words fast path (decode them). */
  readonly states: unknown[] = [];
  readonly words = new WordWriter(1 << 10);
  /** The expanded state's object and actions (undefined from the fast path). */
  state: unknown;
  actions: readonly unknown[] | undefined;
  readonly decoder: StateDecoder;
  /** Successors straight from words (Model.successorWords): no state object per successor. */
  readonly fromWords: boolean;
  private readonly view = new WordWriter();
  private readonly out = new WordWriter();
  private parent: Int32Array = new Int32Array(0);
  private parentLength = 0;
  /** What `probe` read, kept so that no compiler drops the reads. */
  private touched = 0;

  /** `objects`: the caller needs each successor's object (coverage, say): no fast path. */
  constructor(readonly model: AnyModel, objects = false) {
    this.decoder = new StateDecoder(model);
    this.fromWords = model.successorWords !== undefined && !model.withinBounds &&
      !model.writeView && !objects;
  }

  /** Generates the successors of the state encoded as parent.words[0, parent.length). */
  expand(parent: WordWriter): void {
    this.reset(parent.words, parent.length);
    if (this.fromWords) {
      this.state = undefined;
      this.actions = undefined;
      this.model.successorWords!(parent.words, 0, parent.length, this.out, this.emitWords);
      return;
    }
    const model = this.model;
    const state = this.decoder.decode(parent.words, 0, parent.length);
    const actions = model.actions(state);
    this.state = state;
    this.actions = actions;
    for (let index = 0; index < actions.length; index++) {
      const successor = model.next(state, actions[index]);
      if (successor === null) continue;
      if (successor === state) this.add(index, SuccessorKind.Same, successor);
      else this.generated(index, successor);
    }
  }

  /** Takes the initial states as the successors of no state (action index: their index). */
  initial(states: readonly unknown[]): void {
    this.reset(this.parent, 0);
    this.state = undefined;
    this.actions = undefined;
    states.forEach((state, index) => this.generated(index, state));
  }

  /**
   * Reads the home slot of every successor to look up, before any lookup: their cache
   * misses then overlap, where a lookup right after each generation waits for its own.
   */
  probe(set: { probe(high: number, low: number): number }): void {
    let touched = 0;
    for (let k = 0; k < this.count; k++) {
      if (this.kinds[k] !== SuccessorKind.Inside) continue;
      touched ^= set.probe(this.highs[k]!, this.lows[k]!);
    }
    this.touched = touched;
  }

  /** The object of successor k (decoded from its words on the fast path). */
  stateOf(k: number): unknown {
    return this.states[k] ?? this.decoder.decode(this.words.words, this.starts[k]!, this.ends[k]!);
  }

  private reset(parent: Int32Array, parentLength: number): void {
    this.count = 0;
    this.words.reset();
    this.parent = parent;
    this.parentLength = parentLength;
  }

  private generated(index: number, successor: unknown): void {
    const model = this.model;
    if (model.withinBounds && !model.withinBounds(successor)) {
      this.add(index, SuccessorKind.Outside, successor);
      return;
    }
    const words = this.words;
    const start = words.length;
    model.codec.encode(successor, words);
    if (this.isParent(start)) {
      words.length = start;
      this.add(index, SuccessorKind.Same, successor);
      return;
    }
    if (model.writeView) {
      const view = this.view;
      view.reset();
      model.writeView(successor, view);
      fingerprintWords(view.words, 0, view.length);
    } else {
      fingerprintWords(words.words, start, words.length);
    }
    this.addInside(index, successor, start);
  }

  /** The fast path's successor, in `out` (see Model.successorWords). */
  private readonly emitWords = (actionIndex: number): void => {
    const out = this.out;
    const words = this.words;
    const start = words.length;
    words.pushWords(out.words, 0, out.length);
    if (this.isParent(start)) {
      words.length = start;
      this.add(actionIndex, SuccessorKind.Same, undefined);
      return;
    }
    fingerprintWords(words.words, start, words.length);
    this.addInside(actionIndex, undefined, start);
  };

  /** Whether the words from `start` to the end of `words` are the parent's (a stutter). */
  private isParent(start: number): boolean {
    const length = this.parentLength;
    const words = this.words;
    if (words.length - start !== length || length === 0) return false;
    const own = words.words;
    const parent = this.parent;
    for (let index = 0; index < length; index++) {
      if (own[start + index] !== parent[index]) return false;
    }
    return true;
  }

  private addInside(index: number, successor: unknown, start: number): void {
    const k = this.add(index, SuccessorKind.Inside, successor);
    this.highs[k] = fingerprint.high;
    this.lows[k] = fingerprint.low;
    this.starts[k] = start;
    this.ends[k] = this.words.length;
  }

  private add(index: number, kind: SuccessorKind, successor: unknown): number {
    const k = this.count++;
    if (k === this.kinds.length) this.grow();
    this.kinds[k] = kind;
    this.actionIndexes[k] = index;
    this.states[k] = successor;
    return k;
  }

  private grow(): void {
    const capacity = this.kinds.length * 2;
    const wider = <T extends Int32Array | Uint8Array>(old: T, fresh: T): T => {
      fresh.set(old);
      return fresh;
    };
    this.kinds = wider(this.kinds, new Uint8Array(capacity));
    this.actionIndexes = wider(this.actionIndexes, new Int32Array(capacity));
    this.highs = wider(this.highs, new Int32Array(capacity));
    this.lows = wider(this.lows, new Int32Array(capacity));
    this.starts = wider(this.starts, new Int32Array(capacity));
    this.ends = wider(this.ends, new Int32Array(capacity));
  }
}
