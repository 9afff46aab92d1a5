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
  const found: { index: number; type: string; action: unknown; next: unknown }[] = [];
  model.actions(state).forEach((action, index) => {
    if (!drivable(action, state)) return;
    const next = model.next(state, action);
    if (next === null || !(model.withinBounds?.(next) ?? true)) return;
    found.push({ index, type: actionType(action), action, next });
  });
  return found;
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
  const left = new Set<string>();
  const guide = options.guided === true ? new Guide(model, random) : null;
  for (let walk = 0; walk < options.walks; walk++) {
    const initialIndex = Math.floor(random() * initial.length);
    let state = initial[initialIndex];
    const actionIndexes: number[] = [];
    const walked = { actions: [] as unknown[], states: [state] };
    // Swarm testing (Groce et al., ISSTA 2012): every other walk leaves out a random half of
    // the action types, so that some walks go deep into what the rest allow (no drops: an
    // election completes and entries commit) instead of every walk spreading thin.
    left.clear();
    guide?.startWalk();
    const swarm = walk % 2 === 1;
    while (actionIndexes.length < options.depth) {
      const all = successors(model, state, drivable);
      if (all.length === 0) break;
      let chosen: Successor;
      if (guide !== null) {
        chosen = guide.choose(all);
      } else {
        for (const { type } of all) {
          if (swarm && !left.has(`+${type}`) && !left.has(`-${type}`)) {
            left.add(random() < 0.5 ? `-${type}` : `+${type}`);
          }
        }
        const kept = all.filter(({ type }) => !left.has(`-${type}`));
        const next = kept.length > 0 ? kept : all;
        chosen = next[Math.floor(random() * next.length)]!;
      }
      actionIndexes.push(chosen.index);
      walked.actions.push(chosen.action);
      walked.states.push(chosen.next);
      state = chosen.next;
    }
    yield { initialIndex, actionIndexes, walked };
  }
}

type Successor = ReturnType<typeof successors>[number];

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
