/**
 * Liveness under weak fairness, on the explored state graph (graph.ts), as TLC checks
 * `<>Q` and `P ~> Q` with WF_vars(A) conjuncts.
 *
 * A counterexample is a fair behaviour in which Q never holds (after P): a lasso. For
 * `eventually Q` it starts in an initial state where Q is false; for `P ~> Q` it reaches a
 * state where P holds and Q does not. From there it stays among states where Q is false
 * (the "region") and ends either
 * - stuttering forever in a state where no weakly fair class is enabled (a terminal state,
 *   or one where only unfair actions are enabled), or
 * - going round a cycle of the region forever. A cycle is fair when every class enabled in
 *   all of its states is taken on it. A strongly connected component of the region holds a
 *   fair cycle exactly when the cycle through all its states and edges is fair, that is when
 *   every class enabled in every member state is taken on an edge inside it: a smaller cycle
 *   visits fewer states and takes fewer classes, so it can only be less fair.
 *
 * Among all candidates the one nearest to the region's entry is reported, so counterexamples
 * are short and do not depend on the order of the search.
 */
import { ok as assert } from 'node:assert';
import { breadthFirstSearch } from './bfs.js';
import { fairCycle, type ComponentFairness } from './liveness-cycle.js';
import { stronglyConnectedComponents, type Components } from './graph-scc.js';
import { treePath, unfair, type StateGraph } from './graph.js';
import type { AnyModel } from './model.js';
import type { SearchOptions } from './search.js';

/** A behaviour that repeats forever: steps [loop, actionIndexes.length) form the cycle. */
export interface Lasso {
  readonly initialIndex: number;
  readonly actionIndexes: readonly number[];
  /** Number of steps before the cycle; equal to the length when the last state stutters. */
  readonly loop: number;
}

export interface LivenessResult {
  readonly result: 'ok' | 'violation' | 'incomplete';
  readonly property?: string;
  readonly lasso?: Lasso;
  readonly properties: readonly string[];
  readonly distinctStates: number;
  readonly edges: number;
  readonly statesGenerated: number;
  /** Bytes of the graph's tables (ids, per-state and per-edge arrays, frontier). */
  readonly graphBytes: number;
  readonly seconds: number;
  readonly stoppedBy?: 'max-states' | 'time-limit';
}

/**
 * The state graph on its own, when no safety search recorded it (another strategy, several
 * workers, a resumed search, a symmetry view): BFS without invariants, deadlocks or view.
 */
export function buildStateGraph(model: AnyModel, options: SearchOptions = {}): StateGraph {
  const plain: AnyModel = Object.create(model, {
    invariants: { value: [] },
    sometimes: { value: [] },
    writeView: { value: undefined },
  });
  const { checkpoint: _checkpoint, disk: _disk, continueAfterViolation: _continue, ...limits } =
    options;
  const search = breadthFirstSearch(plain, { ...limits, deadlock: false, recordGraph: true });
  assert(search.graph, 'a search without invariants records its graph');
  return search.graph;
}

/**
 * Checks each of the model's temporal properties in turn on the graph a safety search
 * recorded (`recordGraph`), or on one built for it. `seconds` counts the building, not the
 * recording (the safety search's time).
 */
export function checkLiveness(
  model: AnyModel,
  options: SearchOptions = {},
  recorded?: StateGraph,
): LivenessResult {
  const started = performance.now();
  const graph = recorded ?? buildStateGraph(model, options);
  const properties = (model.properties ?? []).map((property) => property.name);
  const summary = {
    properties,
    distinctStates: graph.stateCount,
    edges: graph.edgeCount,
    statesGenerated: graph.statesGenerated,
    graphBytes: graph.bytes,
  };
  const seconds = () => (performance.now() - started) / 1000;
  if (graph.stoppedBy) {
    return { result: 'incomplete', stoppedBy: graph.stoppedBy, ...summary, seconds: seconds() };
  }
  for (const [index, name] of properties.entries()) {
    const eventually = model.properties![index]!.kind === 'eventually';
    const lasso = findViolation(graph, index, eventually);
    if (!lasso) continue;
    return { result: 'violation', property: name, lasso, ...summary, seconds: seconds() };
  }
  return { result: 'ok', ...summary, seconds: seconds() };
}

/** Region states get their distance from a source and the edge they were reached by. */
interface Region {
  readonly inside: Uint8Array;
  readonly distance: Int32Array;
  /** The edge into the state along the region's BFS, or -1 for a source, and its source. */
  readonly viaEdge: Int32Array;
  readonly viaSource: Int32Array;
}

/** The lasso of the nearest fair ending of a behaviour in which Q stays false, or null. */
export function findViolation(
  graph: StateGraph,
  property: number,
  eventually: boolean,
): Lasso | null {
  const region = regionOf(graph, property, eventually);
  const components = stronglyConnectedComponents(graph, region.inside);
  const fairness: ComponentFairness = { graph, components };
  let best = -1;
  let bestIsCycle = false;
  const consider = (state: number, isCycle: boolean) => {
    const distance = region.distance[state]!;
    const bestDistance = best < 0 ? Infinity : region.distance[best]!;
    if (distance < bestDistance || (distance === bestDistance && state < best)) {
      best = state;
      bestIsCycle = isCycle;
    }
  };
  for (let state = 0; state < graph.stateCount; state++) {
    if (region.inside[state] && !enablesFairClass(graph, state)) consider(state, false);
  }
  for (let c = 0; c < components.count; c++) {
    const start = components.memberStart[c]!;
    const size = components.memberStart[c + 1]! - start;
    if (size < 2 || !componentIsFair(graph, components, c)) continue;
    let entry = components.members[start]!;
    for (const member of components.members.subarray(start, start + size)) {
      if (region.distance[member]! < region.distance[entry]!) entry = member;
    }
    consider(entry, true);
  }
  if (best < 0) return null;
  const prefix = pathInto(graph, region, best);
  const cycle = bestIsCycle ? fairCycle(fairness, best) : [];
  return {
    initialIndex: prefix.initialIndex,
    actionIndexes: [...prefix.actions, ...cycle.map((edge) => graph.edgeAction[edge]!)],
    loop: prefix.actions.length,
  };
}

/** States reachable from a source through states where Q is false, breadth-first. */
function regionOf(graph: StateGraph, property: number, eventually: boolean): Region {
  const count = graph.stateCount;
  const holdsBit = 1 << (2 * property);
  const triggerBit = 1 << (2 * property + 1);
  const inside = new Uint8Array(count);
  const distance = new Int32Array(count).fill(-1);
  const viaEdge = new Int32Array(count).fill(-1);
  const viaSource = new Int32Array(count);
  const queue = new Int32Array(count);
  let tail = 0;
  for (let state = 0; state < count; state++) {
    const bits = graph.propertyBits[state]!;
    const source = eventually ? graph.parent[state]! < 0 : (bits & triggerBit) !== 0;
    if (source && (bits & holdsBit) === 0) {
      inside[state] = 1;
      distance[state] = 0;
      queue[tail++] = state;
    }
  }
  for (let head = 0; head < tail; head++) {
    const state = queue[head]!;
    for (let edge = graph.edgeStart[state]!; edge < graph.edgeStart[state + 1]!; edge++) {
      const target = graph.edgeTarget[edge]!;
      if (target < 0 || inside[target] || (graph.propertyBits[target]! & holdsBit) !== 0) continue;
      inside[target] = 1;
      distance[target] = distance[state]! + 1;
      viaEdge[target] = edge;
      viaSource[target] = state;
      queue[tail++] = target;
    }
  }
  return { inside, distance, viaEdge, viaSource };
}

/** Whether some weakly fair action can take a (non-stuttering) step from the state. */
function enablesFairClass(graph: StateGraph, state: number): boolean {
  for (let edge = graph.edgeStart[state]!; edge < graph.edgeStart[state + 1]!; edge++) {
    if (graph.edgeClass[edge] !== unfair) return true;
  }
  return false;
}

/** Every class enabled in all members is taken on an edge between members. */
function componentIsFair(graph: StateGraph, components: Components, component: number): boolean {
  const start = components.memberStart[component]!;
  const members = components.members.subarray(start, components.memberStart[component + 1]!);
  const classCount = graph.classNames.length;
  const enabledIn = new Int32Array(classCount);
  const lastCounted = new Int32Array(classCount).fill(-1);
  const taken = new Uint8Array(classCount);
  for (const state of members) {
    for (let edge = graph.edgeStart[state]!; edge < graph.edgeStart[state + 1]!; edge++) {
      const fairClass = graph.edgeClass[edge]!;
      if (fairClass === unfair) continue;
      if (lastCounted[fairClass] !== state) {
        lastCounted[fairClass] = state;
        enabledIn[fairClass]!++;
      }
      const target = graph.edgeTarget[edge]!;
      if (target >= 0 && components.component[target] === component) taken[fairClass] = 1;
    }
  }
  for (let fairClass = 0; fairClass < classCount; fairClass++) {
    if (enabledIn[fairClass] === members.length && !taken[fairClass]) return false;
  }
  return true;
}

/** An initial state's path along the BFS tree to a source, then inside the region. */
function pathInto(graph: StateGraph, region: Region, state: number) {
  const inRegion: number[] = [];
  let current = state;
  for (let steps = 0; region.viaEdge[current]! >= 0; steps++) {
    assert(steps < graph.stateCount, 'cycle in the region tree');
    const edge = region.viaEdge[current]!;
    inRegion.push(graph.edgeAction[edge]!);
    current = region.viaSource[current]!;
  }
  inRegion.reverse();
  const toSource = treePath(graph, current);
  return { initialIndex: toSource.initialIndex, actions: [...toSource.actions, ...inRegion] };
}
