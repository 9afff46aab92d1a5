/**
 * Strongly connected components of a sub-graph of the state graph: Tarjan's algorithm
 * (Tarjan 1972), iterative with an explicit call stack (STYLE rule 7: no recursion), so a
 * path of a million states needs no deep JavaScript stack. Linear in states and edges.
 */
import { ok as assert } from 'node:assert';
import type { StateGraph } from './graph.js';

export interface Components {
  /** Component of each state, or -1 for a state outside the sub-graph. */
  readonly component: Int32Array;
  readonly count: number;
  /** Members of component c: members[memberStart[c] .. memberStart[c + 1]). */
  readonly memberStart: Int32Array;
  readonly members: Int32Array;
}

const unvisited = -1;

/** SCCs of the sub-graph induced by the states with `inside[state]` true. */
export function stronglyConnectedComponents(graph: StateGraph, inside: Uint8Array): Components {
  const stateCount = graph.stateCount;
  const order = new Int32Array(stateCount).fill(unvisited);
  const lowLink = new Int32Array(stateCount);
  const component = new Int32Array(stateCount).fill(-1);
  const stack = new Int32Array(stateCount);
  const callState = new Int32Array(stateCount);
  const callEdge = new Int32Array(stateCount);
  let stackSize = 0;
  let nextOrder = 0;
  let count = 0;
  const { edgeStart, edgeTarget } = graph;
  for (let root = 0; root < stateCount; root++) {
    if (!inside[root] || order[root] !== unvisited) continue;
    let depth = 0;
    callState[0] = root;
    callEdge[0] = edgeStart[root]!;
    order[root] = lowLink[root] = nextOrder++;
    stack[stackSize++] = root;
    while (depth >= 0) {
      const state = callState[depth]!;
      const edge = callEdge[depth]!;
      if (edge < edgeStart[state + 1]!) {
        callEdge[depth] = edge + 1;
        const target = edgeTarget[edge]!;
        if (target < 0 || !inside[target]) continue;
        if (order[target] === unvisited) {
          order[target] = lowLink[target] = nextOrder++;
          stack[stackSize++] = target;
          depth++;
          callState[depth] = target;
          callEdge[depth] = edgeStart[target]!;
        } else if (component[target] === -1) {
          lowLink[state] = Math.min(lowLink[state]!, order[target]!);
        }
        continue;
      }
      // Every edge of `state` is done: it closes a component if it is the root of one.
      if (lowLink[state] === order[state]) {
        let member: number;
        do {
          member = stack[--stackSize]!;
          component[member] = count;
        } while (member !== state);
        count++;
      }
      depth--;
      if (depth >= 0) {
        const caller = callState[depth]!;
        lowLink[caller] = Math.min(lowLink[caller]!, lowLink[state]!);
      }
    }
  }
  assert(stackSize === 0, 'Tarjan stack not empty at the end');
  return { component, count, ...groupMembers(component, count) };
}

/** Members of each component, grouped by a counting sort, in increasing id order. */
function groupMembers(component: Int32Array, count: number) {
  const memberStart = new Int32Array(count + 1);
  for (const c of component) if (c >= 0) memberStart[c + 1]!++;
  for (let c = 0; c < count; c++) memberStart[c + 1]! += memberStart[c]!;
  const members = new Int32Array(memberStart[count]!);
  const fill = memberStart.slice(0, count);
  component.forEach((c, state) => {
    if (c >= 0) members[fill[c]!++] = state;
  });
  return { memberStart, members };
}
