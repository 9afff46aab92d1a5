/**
 * The explored state graph with its edges, for liveness (liveness.ts). A safety search keeps
 * only parent links; a temporal property needs every edge, so one-thread BFS records them as
 * it goes when asked to (`SearchOptions.recordGraph`, `GraphRecorder`): no state is expanded
 * twice, and plain safety checks never pay for it.
 *
 * States get ids in breadth-first order (the BFS tree gives each state a shortest path from
 * an initial state). The edges of state i are edges [edgeStart[i], edgeStart[i + 1]); each
 * records its target (or `outsideBounds`), the index of its action in `actions(state)` and
 * its weak-fairness class. A step that leaves the state unchanged is no edge: in TLA+ it is
 * a stuttering step, which neither takes nor enables an action (<<A>>_vars). A successor
 * outside the state constraint is an edge to `outsideBounds`: its action is enabled, so a
 * behaviour that never takes it while it stays enabled is not fair, but the graph ends there.
 *
 * Memory (see `bytes`): per edge 4 bytes of target, 1 of action index and 1 of class while
 * they fit in a byte (2 or 4 past that); per state the search's visited set with ids (three
 * words a slot, 3/8 to 3/4 full: 16 to 32 bytes) and 13 bytes of arrays (edge start, parent,
 * parent action, property bits). Arrays double as they grow, so up to twice that is reserved.
 * States are identified by the codec's encoding, not the model's view: fairness classes
 * name actors, and a quotient by symmetry would merge classes (TLC warns the same).
 */
import { ok as assert } from 'node:assert';
import { GrowableInt32, GrowableSmallInt, IdTable, type SmallInts } from './graph-storage.js';
import type { AnyModel } from './model.js';
import type { SearchOptions } from './search.js';
import type { ParentTable } from './state-store.js';

/** The target of an edge whose successor lies outside the state constraint. */
export const outsideBounds = -1;
/** The class of an action that is not weakly fair. */
export const unfair = -1;
/** Bits of `propertyBits`: two per property (holds, trigger), so at most 16 properties. */
export const propertiesMax = 16;

export interface StateGraph {
  readonly stateCount: number;
  readonly edgeCount: number;
  /** stateCount + 1 entries. */
  readonly edgeStart: Int32Array;
  readonly edgeTarget: Int32Array;
  readonly edgeAction: SmallInts;
  readonly edgeClass: SmallInts;
  readonly classNames: readonly string[];
  /** BFS tree: the parent's id (-1 for an initial state) and the action index from it. */
  readonly parent: Int32Array;
  /** For an initial state, its index in `initialStates()`. */
  readonly parentAction: Int32Array;
  /** Bit 2k: property k holds; bit 2k + 1: property k's trigger holds. */
  readonly propertyBits: SmallInts;
  readonly stoppedBy?: 'max-states' | 'time-limit';
  readonly statesGenerated: number;
  readonly bytes: number;
}

/** The weakly fair class of an action under the model's fairness, or null. */
export function fairnessClass(model: AnyModel, action: unknown, state: unknown): string | null {
  const fairness = model.fairness;
  if (!fairness) return null;
  if (fairness.weakClass) return fairness.weakClass(action, state);
  const label = model.label(action);
  const prefixes = fairness.weakLabelPrefixes ?? [];
  return prefixes.some((prefix) => label.startsWith(prefix)) ? label : null;
}

function propertyBitsOf(model: AnyModel, state: unknown): number {
  let bits = 0;
  (model.properties ?? []).forEach((property, index) => {
    if (property.holds(state)) bits |= 1 << (2 * index);
    const trigger = property.kind === 'leadsTo' ? property.trigger(state) : true;
    if (trigger) bits |= 1 << (2 * index + 1);
  });
  return bits;
}

/** Whether one-thread BFS with these options records the graph (see graphRecorderFor). */
export function recordsGraph(
  model: AnyModel,
  options: Pick<SearchOptions, 'recordGraph' | 'checkpoint'>,
): boolean {
  return options.recordGraph === true && !options.checkpoint?.resume && !model.writeView;
}

/**
 * A recorder for a search that can give the graph: one-thread BFS (ids in BFS order), not
 * resumed from a checkpoint (its states have no parents), on a model without a symmetry view.
 */
export function graphRecorderFor(
  model: AnyModel,
  options: SearchOptions,
): GraphRecorder | undefined {
  if (!recordsGraph(model, options)) return undefined;
  assert((model.properties ?? []).length <= propertiesMax, 'at most 16 temporal properties');
  return new GraphRecorder(model);
}

/** What the search tells the recorder: states in id order, then each one's edges in order. */
export class GraphRecorder {
  /** The search's visited set: fingerprint -> state id. */
  readonly ids = new IdTable();
  private readonly edgeStart = new GrowableInt32();
  private readonly propertyBits = new GrowableSmallInt();
  private readonly edgeTarget = new GrowableInt32();
  private readonly edgeAction = new GrowableSmallInt();
  private readonly edgeClass = new GrowableSmallInt();
  private readonly classIds = new Map<string, number>();
  private readonly classNames: string[] = [];
  private state: unknown;
  private actions: readonly unknown[] = [];
  /**
   * A label's class does not depend on the state: under `weakLabelPrefixes`, the classes of
   * the last actions array by index (-2: not computed), kept while `actions` returns it again.
   */
  private readonly byLabel: boolean;
  private classesOf: readonly unknown[] | undefined;
  private classes = new Int32Array(0);

  constructor(private readonly model: AnyModel) {
    this.byLabel = !model.fairness?.weakClass;
  }

  /** A new state (in id order): which properties' targets and triggers hold there. */
  added(state: unknown): void {
    this.propertyBits.push(propertyBitsOf(this.model, state));
  }

  /** The edges that follow leave state `id`, whose actions are `actions`. */
  expanding(id: number, state: unknown, actions: readonly unknown[]): void {
    assert(id === this.edgeStart.length, 'states are expanded in id order');
    this.edgeStart.push(this.edgeTarget.length);
    this.state = state;
    this.actions = actions;
  }

  /** An edge of the state being expanded: to state `target` (or `outsideBounds`). */
  edge(target: number, actionIndex: number): void {
    this.edgeTarget.push(target);
    this.edgeAction.push(actionIndex);
    this.edgeClass.push(this.classOf(actionIndex));
  }

  /** The graph, once the search is over; states it did not expand have no edges. */
  finish(parents: ParentTable, statesGenerated: number, stoppedBy: StateGraph['stoppedBy']) {
    const stateCount = parents.size;
    while (this.edgeStart.length <= stateCount) this.edgeStart.push(this.edgeTarget.length);
    const parent = new Int32Array(stateCount);
    const parentAction = new Int32Array(stateCount);
    for (let id = 0; id < stateCount; id++) {
      parent[id] = parents.parentOf(id);
      parentAction[id] = parents.actionOf(id);
    }
    const arrays = [this.edgeStart, this.propertyBits, this.edgeTarget, this.edgeAction,
      this.edgeClass];
    const bytes = this.ids.bytes + parent.byteLength + parentAction.byteLength +
      arrays.reduce((sum, array) => sum + array.bytes, 0);
    const graph: StateGraph = {
      stateCount,
      edgeCount: this.edgeTarget.length,
      edgeStart: this.edgeStart.toArray(),
      edgeTarget: this.edgeTarget.toArray(),
      edgeAction: this.edgeAction.toArray(),
      edgeClass: this.edgeClass.toArray(),
      classNames: this.classNames,
      parent,
      parentAction,
      propertyBits: this.propertyBits.toArray(),
      ...(stoppedBy ? { stoppedBy } : {}),
      statesGenerated,
      bytes,
    };
    return graph;
  }

  private classOf(actionIndex: number): number {
    if (!this.byLabel) return this.classId(this.actions[actionIndex], this.state);
    if (this.classesOf !== this.actions) {
      this.classesOf = this.actions;
      this.classes = new Int32Array(this.actions.length).fill(-2);
    }
    if (this.classes[actionIndex] === -2) {
      this.classes[actionIndex] = this.classId(this.actions[actionIndex], this.state);
    }
    return this.classes[actionIndex]!;
  }

  private classId(action: unknown, state: unknown): number {
    const name = fairnessClass(this.model, action, state);
    if (name === null) return unfair;
    let id = this.classIds.get(name);
    if (id === undefined) {
      id = this.classNames.length;
      this.classIds.set(name, id);
      this.classNames.push(name);
    }
    return id;
  }
}

/** The path of action indexes from an initial state to `id` along the BFS tree. */
export function treePath(graph: StateGraph, id: number) {
  const actions: number[] = [];
  let current = id;
  for (let steps = 0; graph.parent[current]! >= 0; steps++) {
    assert(steps < graph.stateCount, 'cycle in the BFS tree');
    actions.push(graph.parentAction[current]!);
    current = graph.parent[current]!;
  }
  actions.reverse();
  return { initialIndex: graph.parentAction[current]!, actions };
}
