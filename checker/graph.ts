/**
 * The explored state graph with its edges, for liveness (liveness.ts). Safety searches keep
 * only parent links; a temporal property needs every edge, so this is a separate pass that
 * plain safety checks never pay for.
 *
 * States get ids in breadth-first order (the BFS tree gives each state a shortest path from
 * an initial state). The edges of state i are edges [edgeStart[i], edgeStart[i + 1]); each
 * records its target (or `outsideBounds`), the index of its action in `actions(state)` and
 * its weak-fairness class. A step that leaves the state unchanged is no edge: in TLA+ it is
 * a stuttering step, which neither takes nor enables an action (<<A>>_vars). A successor
 * outside the state constraint is an edge to `outsideBounds`: its action is enabled, so a
 * behaviour that never takes it while it stays enabled is not fair, but the graph ends there.
 *
 * Memory (see `bytes`): per state 32-48 bytes of the id table (three words a slot, 1/2 to
 * 3/4 full) and 16 bytes of arrays (edge start, parent, parent action, property bits); per
 * edge 12 bytes (target, action index, class); and the encoded states of two BFS levels.
 * Arrays double as they grow, so up to twice that is reserved.
 * States are identified by the codec's encoding, not the model's view: fairness classes
 * name actors, and a quotient by symmetry would merge classes (TLC warns the same).
 */
import { ok as assert } from 'node:assert';
import { fingerprint, fingerprintWords } from './fingerprint.js';
import { GrowableInt32, IdTable } from './graph-storage.js';
import type { AnyModel } from './model.js';
import { Clock, type SearchOptions } from './search.js';
import { emptyQueueEntry, StateQueue } from './state-store.js';
import { WordReader, WordWriter } from './words.js';

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
  readonly edgeAction: Int32Array;
  readonly edgeClass: Int32Array;
  readonly classNames: readonly string[];
  /** BFS tree: the parent's id (-1 for an initial state) and the action index from it. */
  readonly parent: Int32Array;
  /** For an initial state, its index in `initialStates()`. */
  readonly parentAction: Int32Array;
  /** Bit 2k: property k holds; bit 2k + 1: property k's trigger holds. */
  readonly propertyBits: Int32Array;
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

class GraphBuilder {
  readonly ids = new IdTable();
  /** The level being expanded and the next one: a level's buffer is reused once expanded. */
  current = new StateQueue();
  upcoming = new StateQueue();
  frontierBytesMax = 0;
  stoppedBy: StateGraph['stoppedBy'];
  readonly edgeStart = new GrowableInt32();
  readonly parent = new GrowableInt32();
  readonly parentAction = new GrowableInt32();
  readonly propertyBits = new GrowableInt32();
  readonly edgeTarget = new GrowableInt32();
  readonly edgeAction = new GrowableInt32();
  readonly edgeClass = new GrowableInt32();
  readonly classIds = new Map<string, number>();
  readonly classNames: string[] = [];
  readonly encoded = new WordWriter();
  statesGenerated = 0;

  constructor(
    readonly model: AnyModel,
    private readonly maxStates: number,
  ) {}

  /** The id of a state inside the bounds, adding it (and queueing it) when new. */
  idOf(state: unknown, parentId: number, action: number): number {
    this.statesGenerated++;
    const model = this.model;
    if (model.withinBounds && !model.withinBounds(state)) return outsideBounds;
    const encoded = this.encoded;
    encoded.reset();
    model.codec.encode(state, encoded);
    fingerprintWords(encoded.words, 0, encoded.length);
    const known = this.ids.get(fingerprint.high, fingerprint.low);
    if (known >= 0) return known;
    const id = this.parent.length;
    if (id >= this.maxStates) {
      this.stoppedBy = 'max-states';
      return outsideBounds;
    }
    this.ids.set(fingerprint.high, fingerprint.low, id);
    this.parent.push(parentId);
    this.parentAction.push(action);
    this.propertyBits.push(propertyBitsOf(model, state));
    this.upcoming.push(id, encoded);
    return id;
  }

  nextLevel(): void {
    const frontierBytes = this.current.bytes + this.upcoming.bytes;
    this.frontierBytesMax = Math.max(this.frontierBytesMax, frontierBytes);
    [this.current, this.upcoming] = [this.upcoming, this.current];
    this.upcoming.clear();
  }

  classOf(action: unknown, state: unknown): number {
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

/** Explores the bounded state space breadth-first, keeping every edge. */
export function buildStateGraph(model: AnyModel, options: SearchOptions = {}): StateGraph {
  assert((model.properties ?? []).length <= propertiesMax, 'at most 16 temporal properties');
  const builder = new GraphBuilder(model, options.maxStates ?? Infinity);
  const clock = new Clock(options);
  model.initialStates().forEach((state, index) => builder.idOf(state, -1, index));
  const entry = emptyQueueEntry();
  const reader = new WordReader(new Int32Array(0));
  const progress = () => ({
    statesGenerated: builder.statesGenerated,
    distinctStates: builder.parent.length,
    queue: builder.current.count + builder.upcoming.count,
    depth: 0,
    seconds: clock.seconds,
  });
  while (builder.current.count > 0 || builder.upcoming.count > 0) {
    if (builder.current.count === 0) builder.nextLevel();
    if (!builder.stoppedBy && clock.tick(progress)) builder.stoppedBy = 'time-limit';
    if (builder.stoppedBy) break;
    builder.current.shiftEntry(entry);
    const id = entry.id;
    assert(id === builder.edgeStart.length, 'states are expanded in id order');
    builder.edgeStart.push(builder.edgeTarget.length);
    reader.words = entry.words;
    reader.position = entry.start;
    reader.end = entry.end;
    const state = model.codec.decode(reader);
    const actions = model.actions(state);
    for (let index = 0; index < actions.length; index++) {
      const successor = model.next(state, actions[index]);
      if (successor === null) continue;
      const target = builder.idOf(successor, id, index);
      if (target === id) continue;
      builder.edgeTarget.push(target);
      builder.edgeAction.push(index);
      builder.edgeClass.push(builder.classOf(actions[index], state));
    }
  }
  return finish(builder, builder.stoppedBy);
}

function finish(builder: GraphBuilder, stoppedBy: StateGraph['stoppedBy']): StateGraph {
  // States never expanded (a stopped search) get no edges; the verdict is then incomplete.
  while (builder.edgeStart.length <= builder.parent.length) {
    builder.edgeStart.push(builder.edgeTarget.length);
  }
  const arrays = [
    builder.edgeStart,
    builder.parent,
    builder.parentAction,
    builder.propertyBits,
    builder.edgeTarget,
    builder.edgeAction,
    builder.edgeClass,
  ];
  const bytes =
    builder.ids.bytes +
    arrays.reduce((sum, array) => sum + array.bytes, 0) +
    Math.max(builder.frontierBytesMax, builder.current.bytes + builder.upcoming.bytes);
  return {
    stateCount: builder.parent.length,
    edgeCount: builder.edgeTarget.length,
    edgeStart: builder.edgeStart.toArray(),
    edgeTarget: builder.edgeTarget.toArray(),
    edgeAction: builder.edgeAction.toArray(),
    edgeClass: builder.edgeClass.toArray(),
    classNames: builder.classNames,
    parent: builder.parent.toArray(),
    parentAction: builder.parentAction.toArray(),
    propertyBits: builder.propertyBits.toArray(),
    ...(stoppedBy ? { stoppedBy } : {}),
    statesGenerated: builder.statesGenerated,
    bytes,
  };
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
