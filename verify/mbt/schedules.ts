/**
 * The schedules `shardkv mbt` drives the runtime along, generated from the model: seeded
 * random walks, or the shortest paths to the first N states a breadth-first search reaches.
 * Both step only inside the model's bounds and leave out the actions the runtime cannot be
 * driven by (the adapter's `undriven`).
 */
import type { AnyModel } from '../../checker/model.js';
import type { Path } from '../../checker/search.js';
import { randomGenerator } from '../../checker/simulate.js';
import { WordWriter } from '../../checker/words.js';
import { fingerprint, fingerprintWords } from '../../checker/fingerprint.js';
import { assert } from '../../spec/assert.js';

/**
 * A schedule: a path and, from the walk that made it, the actions it took and the states it
 * reached (states[k] after actions[k - 1]), so that driving it steps nothing again.
 */
export interface Schedule extends Path {
  readonly walked?: { readonly actions: readonly unknown[]; readonly states: readonly unknown[] };
}

/** Whether the runtime can be driven by `action` in the spec's state `state`. */
export type Drivable = (action: unknown, state: unknown) => boolean;

/** What an adapter says it cannot be driven by: action types, and actions in some states. */
export interface Undriven {
  readonly undriven: Readonly<Record<string, string>>;
  refusal?(action: unknown, before: unknown): string | null;
}

export function drivableBy(adapter: Undriven): Drivable {
  return (action, state) => !((action as { type?: string }).type! in adapter.undriven) &&
    (adapter.refusal?.(action, state) ?? null) === null;
}

const actionType = (action: unknown) => String((action as { type?: unknown }).type);

/** The enabled, drivable successors of `state` inside the model's bounds, by action index. */
function successors(model: AnyModel, state: unknown, drivable: Drivable) {
  const found: Successor[] = [];
  model.actions(state).forEach((action, index) => {
    if (!drivable(action, state)) return;
    const next = model.next(state, action);
    if (next === null || !(model.withinBounds?.(next) ?? true)) return;
    found.push({ index, type: actionType(action), action, next });
  });
  return found;
}

interface Successor {
  readonly index: number;
  readonly type: string;
  readonly action: unknown;
  readonly next: unknown;
}

/** States whose successors a run of walks remembers (STYLE 7: bounded); later ones are not. */
const rememberedStatesMax = 100_000;

/**
 * Which actions of a state are enabled successors (their indexes and types), remembered for
 * the walks of one run: the walks retrace the states near the initial one (at the bench's
 * budgets 51% of the controller's steps, 58% of migration's and 77% of raft's start from a
 * state an earlier step left), and finding a state's successors steps every action in the
 * spec. Keyed by the state's codec encoding, which is the state to the checker (it steps the
 * decoded states, and a trace's action indexes index the decoded state's actions); only the
 * chosen action is stepped again, from the walk's own state, so the walked states are the
 * ones stepping the schedule gives. Same seed, same walks as finding every list afresh (the
 * schedules and states of the bench's budgets and the tests' were compared, 3 December).
 */
class SuccessorMemory {
  private readonly remembered = new Map<string, { indexes: number[]; types: string[] }>();
  private readonly encoding = new WordWriter();

  constructor(private readonly model: AnyModel, private readonly drivable: Drivable) {}

  /** The successors of `state`; `next` is stepped only for the one `choose` picks. */
  choose(state: unknown, choose: (types: readonly string[]) => number | null): Successor | null {
    const key = this.key(state);
    const known = this.remembered.get(key);
    if (known === undefined) {
      const all = successors(this.model, state, this.drivable);
      if (this.remembered.size < rememberedStatesMax) {
        this.remembered.set(key, { indexes: all.map(({ index }) => index),
          types: all.map(({ type }) => type) });
      }
      const at = choose(all.map(({ type }) => type));
      return at === null ? null : all[at]!;
    }
    const at = choose(known.types);
    if (at === null) return null;
    const index = known.indexes[at]!;
    const action = this.model.actions(state)[index];
    const next = this.model.next(state, action);
    assert(next !== null, 'a remembered successor is enabled');
    return { index, type: known.types[at]!, action, next };
  }

  private key(state: unknown): string {
    this.encoding.reset();
    this.model.codec.encode(state, this.encoding);
    fingerprintWords(this.encoding.words, 0, this.encoding.length);
    return `${fingerprint.high}:${fingerprint.low}:${this.encoding.length}`;
  }
}

export interface WalkOptions {
  readonly walks: number;
  readonly depth: number;
  readonly seed: number;
  /**
   * Guided walks (`--guided`): every walk is a weighted swarm walk that prefers new states
   * (guidedStep); without it, plain walks alternate with half-type swarm walks.
   */
  readonly guided?: boolean;
}

/** Seeded random walks of at most `depth` steps (a walk ends early where nothing is enabled). */
export function* randomWalks(model: AnyModel, drivable: Drivable, options: WalkOptions):
  Generator<Schedule> {
  const random = randomGenerator(options.seed);
  const initial = model.initialStates();
  /** Per swarm walk: whether the walk leaves each action type out, drawn when first seen. */
  const leftOut = new Map<string, boolean>();
  const guide = options.guided === true ? new Guide(model, random) : null;
  const memory = new SuccessorMemory(model, drivable);
  for (let walk = 0; walk < options.walks; walk++) {
    const initialIndex = Math.floor(random() * initial.length);
    let state = initial[initialIndex];
    const actionIndexes: number[] = [];
    const walked = { actions: [] as unknown[], states: [state] };
    // Swarm testing (Groce et al., ISSTA 2012): every other walk leaves out a random half of
    // the action types, so that some walks go deep into what the rest allow (no drops: an
    // election completes and entries commit) instead of every walk spreading thin.
    leftOut.clear();
    guide?.startWalk();
    const swarm = walk % 2 === 1;
    // A plain or swarm step: uniform over the successors of the types the walk kept. No list
    // of the kept is built: a step's successors are dozens, of a handful of types.
    const pick = (types: readonly string[]): number | null => {
      if (types.length === 0) return null;
      if (swarm) {
        for (const type of types) if (!leftOut.has(type)) leftOut.set(type, random() < 0.5);
      }
      let keptCount = 0;
      for (const type of types) if (leftOut.get(type) !== true) keptCount++;
      if (keptCount === 0) return Math.floor(random() * types.length);
      let rank = Math.floor(random() * keptCount);
      for (let at = 0; at < types.length; at++) {
        if (leftOut.get(types[at]!) === true) continue;
        if (rank-- === 0) return at;
      }
      assert(false, 'a kept successor is chosen');
    };
    while (actionIndexes.length < options.depth) {
      let chosen: Successor | null;
      if (guide !== null) {
        const all = successors(model, state, drivable);
        chosen = all.length === 0 ? null : guide.choose(all);
      } else {
        chosen = memory.choose(state, pick);
      }
      if (chosen === null) break;
      actionIndexes.push(chosen.index);
      walked.actions.push(chosen.action);
      walked.states.push(chosen.next);
      state = chosen.next;
    }
    yield { initialIndex, actionIndexes, walked };
  }
}

/** How often a guided step takes a new state when one is enabled. */
const newStateOdds = 0.9;
/** The share of action types a guided walk nearly leaves out, and the weight they get. */
const rareTypeOdds = 0.3;
const rareTypeWeight = 0.05;

/**
 * Guided walks: each walk draws a weight per action type (swarm testing with weights, as
 * FoundationDB's and TigerBeetle's simulators draw per-run fault rates; a few types get
 * almost none), picks a type by weight and then one of its actions, and nine times in ten
 * takes a successor that no earlier step of any walk reached, when there is one (novelty
 * search: walks spread over new states instead of retracing the common prefixes). A walk is
 * no longer uniform over the enabled actions: the many message actions of a large bag no
 * longer crowd out the one timeout or request a schedule needs.
 */
class Guide {
  private readonly seen = new Set<string>();
  private readonly weights = new Map<string, number>();
  private readonly view = new WordWriter();

  constructor(private readonly model: AnyModel, private readonly random: () => number) {}

  startWalk(): void {
    this.weights.clear();
  }

  choose(all: readonly Successor[]): Successor {
    const fresh = all.filter(({ next }) => !this.seen.has(stateKey(this.model, next, this.view)));
    const from = fresh.length > 0 && this.random() < newStateOdds ? fresh : all;
    const types = [...new Set(from.map(({ type }) => type))];
    for (const type of types) {
      if (this.weights.has(type)) continue;
      this.weights.set(type, this.random() < rareTypeOdds ? rareTypeWeight : this.random());
    }
    let pick = this.random() * types.reduce((sum, type) => sum + this.weights.get(type)!, 0);
    const type = types.find((candidate) => (pick -= this.weights.get(candidate)!) <= 0) ??
      types.at(-1)!;
    const ofType = from.filter((successor) => successor.type === type);
    const chosen = ofType[Math.floor(this.random() * ofType.length)]!;
    this.seen.add(stateKey(this.model, chosen.next, this.view));
    return chosen;
  }
}

/** The key of a state's canonical view: two states with the same key are the same state. */
function stateKey(model: AnyModel, state: unknown, view: WordWriter): string {
  view.reset();
  if (model.writeView) model.writeView(state, view);
  else model.codec.encode(state, view);
  fingerprintWords(view.words, 0, view.length);
  return `${fingerprint.high}:${fingerprint.low}`;
}

/**
 * The shortest paths to the first `count` distinct states a breadth-first search reaches
 * (the initial states count), in the order it reaches them; each path is yielded once.
 */
export function* shortestPaths(model: AnyModel, drivable: Drivable, count: number):
  Generator<Path> {
  const view = new WordWriter();
  const seen = new Set<string>();
  let frontier: { state: unknown; path: Path }[] = [];
  model.initialStates().forEach((state, initialIndex) => {
    const key = stateKey(model, state, view);
    if (seen.has(key)) return;
    seen.add(key);
    frontier.push({ state, path: { initialIndex, actionIndexes: [] } });
  });
  let yielded = 0;
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const { state, path } of frontier) {
      if (yielded++ >= count) return;
      yield path;
      for (const { index, next: successor } of successors(model, state, drivable)) {
        const key = stateKey(model, successor, view);
        if (seen.has(key)) continue;
        seen.add(key);
        next.push({ state: successor, path: { initialIndex: path.initialIndex,
          actionIndexes: [...path.actionIndexes, index] } });
      }
    }
    frontier = next;
  }
}
