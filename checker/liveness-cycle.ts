/**
 * A fair cycle through a fair strongly connected component (see liveness.ts), as a list of
 * edges from the entry state back to it. Every class not enabled at the entry is discharged
 * by the entry itself (it lies on the cycle); for each class enabled there, the cycle goes,
 * by a shortest path inside the component, to the nearest state where the class is disabled
 * or takes one of its edges, unless the cycle built so far already did either. Then it
 * returns to the entry. The cycle is at most (classes enabled at the entry + 1) times the
 * component's size long.
 */
import { ok as assert } from 'node:assert';
import type { Components } from './graph-scc.js';
import { unfair, type StateGraph } from './graph.js';

export interface ComponentFairness {
  readonly graph: StateGraph;
  readonly components: Components;
}

/** Whether an edge of class `fairClass` leaves the state (the class is enabled there). */
function enabledAt(graph: StateGraph, state: number, fairClass: number): boolean {
  for (let edge = graph.edgeStart[state]!; edge < graph.edgeStart[state + 1]!; edge++) {
    if (graph.edgeClass[edge] === fairClass) return true;
  }
  return false;
}

/** An edge of class `fairClass` from the state to a state of the component, or -1. */
function internalEdgeOf(
  fairness: ComponentFairness,
  state: number,
  fairClass: number,
  component: number,
): number {
  const { graph, components } = fairness;
  for (let edge = graph.edgeStart[state]!; edge < graph.edgeStart[state + 1]!; edge++) {
    const target = graph.edgeTarget[edge]!;
    if (graph.edgeClass[edge] !== fairClass || target < 0) continue;
    if (components.component[target] === component) return edge;
  }
  return -1;
}

/**
 * Shortest path of edges inside the component from `from` to the first state accepted by
 * `goal` (at least one step when `nonEmpty`), breadth-first.
 */
function pathWithin(
  fairness: ComponentFairness,
  from: number,
  goal: (state: number) => boolean,
  nonEmpty: boolean,
): number[] {
  const { graph, components } = fairness;
  const component = components.component[from]!;
  if (!nonEmpty && goal(from)) return [];
  const via = new Map<number, number>([[from, -1]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    for (let edge = graph.edgeStart[state]!; edge < graph.edgeStart[state + 1]!; edge++) {
      const target = graph.edgeTarget[edge]!;
      if (target < 0 || components.component[target] !== component) continue;
      if (goal(target)) return [...edgesTo(graph, via, state), edge];
      if (via.has(target)) continue;
      via.set(target, edge);
      queue.push(target);
    }
  }
  assert(false, 'no path inside a strongly connected component');
}

function edgesTo(graph: StateGraph, via: Map<number, number>, state: number): number[] {
  const edges: number[] = [];
  for (let edge = via.get(state)!; edge >= 0; edge = via.get(sourceOf(graph, edge))!) {
    edges.push(edge);
  }
  return edges.reverse();
}

/** The state an edge leaves: the last state whose edges start at or before it. */
function sourceOf(graph: StateGraph, edge: number): number {
  let low = 0;
  let high = graph.stateCount - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (graph.edgeStart[middle]! <= edge) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The edges of a fair cycle from `entry` back to `entry`, inside entry's component. */
export function fairCycle(fairness: ComponentFairness, entry: number): number[] {
  const { graph, components } = fairness;
  const component = components.component[entry]!;
  const cycle: number[] = [];
  const visited = [entry];
  const classes = new Set<number>();
  for (let edge = graph.edgeStart[entry]!; edge < graph.edgeStart[entry + 1]!; edge++) {
    if (graph.edgeClass[edge] !== unfair) classes.add(graph.edgeClass[edge]!);
  }
  const discharged = (fairClass: number) =>
    cycle.some((edge) => graph.edgeClass[edge] === fairClass) ||
    visited.some((state) => !enabledAt(graph, state, fairClass));
  let current = entry;
  for (const fairClass of [...classes].sort((a, b) => a - b)) {
    if (discharged(fairClass)) continue;
    const witness = (state: number) =>
      !enabledAt(graph, state, fairClass) ||
      internalEdgeOf(fairness, state, fairClass, component) >= 0;
    const path = pathWithin(fairness, current, witness, false);
    for (const edge of path) {
      cycle.push(edge);
      current = graph.edgeTarget[edge]!;
      visited.push(current);
    }
    const take = internalEdgeOf(fairness, current, fairClass, component);
    if (enabledAt(graph, current, fairClass) && take >= 0) {
      cycle.push(take);
      current = graph.edgeTarget[take]!;
      visited.push(current);
    }
  }
  const back = pathWithin(fairness, current, (state) => state === entry, cycle.length === 0);
  cycle.push(...back);
  assert(cycle.length > 0, 'a cycle has at least one step');
  return cycle;
}
