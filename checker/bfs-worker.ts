/**
 * One worker of the parallel BFS (see parallel-bfs.ts): owns a partition of the fingerprint
 * space, expands its frontier level by level, and sends successors it does not own to their
 * owners in batches of [parent id, action index, parent rank, fingerprint high, low,
 * invariant code, length, words...]. For each state of the level it builds it keeps the least
 * path key (level-order.ts), so that parent links, and with them counterexamples, do not
 * depend on the order in which batches arrive.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { assert } from '../spec/assert.js';
import { findModel } from '../spec/registry.js';
import { FingerprintIndex } from './fingerprint-index.js';
import { fingerprint, fingerprintWords } from './fingerprint.js';
import { LevelOrder, pathKey } from './level-order.js';
import type { AnyModel } from './model.js';
import {
  distinctWord,
  leastViolation,
  StopReason,
  type CoordinatorMessage,
  type FoundViolation,
  type PeerMessage,
  type WorkerMessage,
  type WorkerSetup,
} from './parallel-protocol.js';
import { deadlockName, isDeadlock } from './search.js';
import { deadEntry, emptyQueueEntry, noParent, ParentTable, StateQueue } from './state-store.js';
import { WordReader, WordWriter } from './words.js';

const batchWordsMax = 1 << 16;
const stopCheckStride = 256;
const headerWords = 7;

const setup = workerData as WorkerSetup;
const definition = findModel(setup.model);
assert(definition !== undefined, `unknown model ${setup.model}`);
const model: AnyModel = definition.create(setup.params, setup.bug);
const port = parentPort!;
const control = setup.control;
const counterBase = 4 + setup.workerIndex * 4;

const visited = new FingerprintIndex();
const parents = new ParentTable();
const order = new LevelOrder();
let current = new StateQueue();
let upcoming = new StateQueue();
const encoded = new WordWriter();
const view = new WordWriter();
const reader = new WordReader(new Int32Array(0));
const outboxes = new Map<number, WordWriter>();
const peers = new Map<number, MessagePort>();
let endsAwaited = 0;
/** The level being worked on, or -1 between a level's end and the next level's start. */
let levelInProgress = -1;
let checkViolations = true;
let statesGenerated = 0;
let depth = 0;
/** The least deadlock or out-of-bounds violation found while expanding this level. */
let levelViolation: FoundViolation | undefined;
/** States of the level being built that violate an invariant: local id, invariant index. */
const violators: number[] = [];

const globalId = (localId: number) => localId * setup.workerCount + setup.workerIndex;
const localId = (id: number) => Math.floor(id / setup.workerCount);
const ownerOf = (low: number) => (low >>> 0) % setup.workerCount;

function stopped(): boolean {
  return Atomics.load(control, 0) !== StopReason.None;
}

function requestStop(reason: StopReason): void {
  Atomics.compareExchange(control, 0, StopReason.None, reason);
}

function publishCounters(): void {
  Atomics.store(control, counterBase, statesGenerated);
  Atomics.store(control, counterBase + 1, visited.size);
  Atomics.store(control, counterBase + 2, current.count + upcoming.count);
  Atomics.store(control, counterBase + 3, depth);
}

/** 1 + the index of the first invariant the state violates, or 0. */
function invariantCode(state: unknown): number {
  if (!checkViolations) return 0;
  const invariants = model.invariants;
  for (let index = 0; index < invariants.length; index++) {
    if (!invariants[index]!.holds(state)) return index + 1;
  }
  return 0;
}

/**
 * Adds a state this worker owns to the level being built, or gives a state of that level a
 * lesser path. With a canonical view (symmetry) the stored representative follows the path.
 */
function insert(
  high: number,
  low: number,
  parentId: number,
  action: number,
  key: number,
  code: number,
  words: Int32Array,
  start: number,
  end: number,
): void {
  const local = visited.findOrAdd(high, low, parents.size);
  if (local < 0) {
    const id = globalId(parents.add(parentId, action));
    order.add(key, upcoming.pushWords(id, words, start, end));
    if (code > 0) violators.push(parents.size - 1, code - 1);
    const distinct = Atomics.add(control, distinctWord, 1) + 1;
    if (setup.maxStates > 0 && distinct >= setup.maxStates) requestStop(StopReason.MaxStates);
    return;
  }
  if (!order.inUpcoming(local) || key >= order.keyOf(local)) return;
  parents.relink(local, parentId, action);
  const offset = order.offsetOf(local);
  order.lower(local, key, model.writeView ? upcoming.replaceWords(offset, words, start, end) : offset);
}

/**
 * Handles one generated state. A state another worker owns is checked here, where it is
 * still an object, and sent as words: the owner then only deduplicates it.
 */
function generate(state: unknown, parentId: number, action: number, parentRank: number): void {
  statesGenerated++;
  if (model.withinBounds && !model.withinBounds(state)) {
    const code = invariantCode(state);
    if (code === 0) return;
    const invariant = model.invariants[code - 1]!.name;
    const key = pathKey(parentRank, action);
    const candidate = { invariant, deadlock: false, key, stateId: parentId, extraAction: action };
    levelViolation = leastViolation(candidate, levelViolation);
    return;
  }
  encoded.reset();
  model.codec.encode(state, encoded);
  if (model.writeView) {
    view.reset();
    model.writeView(state, view);
    fingerprintWords(view.words, 0, view.length);
  } else {
    fingerprintWords(encoded.words, 0, encoded.length);
  }
  const { high, low } = fingerprint;
  const owner = ownerOf(low);
  const code = invariantCode(state);
  if (owner === setup.workerIndex) {
    const key = pathKey(parentRank, action);
    insert(high, low, parentId, action, key, code, encoded.words, 0, encoded.length);
    return;
  }
  const outbox = outboxes.get(owner)!;
  outbox.push(parentId);
  outbox.push(action);
  outbox.push(parentRank);
  outbox.push(high);
  outbox.push(low);
  outbox.push(code);
  outbox.push(encoded.length);
  outbox.pushWords(encoded.words, 0, encoded.length);
  if (outbox.length >= batchWordsMax) flush(owner);
}

function flush(owner: number): void {
  const outbox = outboxes.get(owner)!;
  if (outbox.length === 0) return;
  const words = outbox.words.slice(0, outbox.length);
  const message: PeerMessage = { type: 'batch', words, length: outbox.length };
  peers.get(owner)!.postMessage(message, [words.buffer]);
  outbox.reset();
}

function receiveBatch(words: Int32Array, length: number): void {
  if (stopped()) return;
  for (let position = 0; position < length;) {
    const parentId = words[position]!;
    const action = words[position + 1]!;
    const key = pathKey(words[position + 2]!, action);
    const high = words[position + 3]!;
    const low = words[position + 4]!;
    const code = words[position + 5]!;
    const start = position + headerWords;
    const end = start + words[position + 6]!;
    position = end;
    insert(high, low, parentId, action, key, code, words, start, end);
  }
}

/** Generates a queued state's successors; a state with none may be a deadlock. */
function expandEntry(id: number, words: Int32Array, start: number, end: number): void {
  reader.words = words;
  reader.position = start;
  reader.end = end;
  const state = model.codec.decode(reader);
  const rank = order.rankOf(localId(id));
  const actions = model.actions(state);
  let successors = 0;
  for (let index = 0; index < actions.length; index++) {
    const successor = model.next(state, actions[index]);
    if (successor === null) continue;
    successors++;
    generate(successor, id, index, rank);
  }
  if (successors > 0 || !checkViolations || !setup.deadlock) return;
  if (!isDeadlock(model, state, { deadlock: true })) return;
  const candidate = { invariant: deadlockName, deadlock: true, key: rank, stateId: id };
  levelViolation = leastViolation(candidate, levelViolation);
}

/**
 * Level 0 generates the initial states (on worker 0, which routes them to their owners, the
 * initial index as the action of a rank-0 parent); level L >= 1 expands the states of depth
 * L - 1 into those of depth L.
 */
function expandLevel(level: number): void {
  if (level === 0) {
    if (setup.workerIndex === 0) {
      model.initialStates().forEach((state, index) => generate(state, noParent, index, 0));
    }
  } else {
    const entry = emptyQueueEntry();
    const deadline = setup.deadlineEpochMs;
    for (let expanded = 0; current.count > 0; expanded++) {
      if (expanded % stopCheckStride === 0) {
        publishCounters();
        if (deadline > 0 && Date.now() >= deadline) requestStop(StopReason.TimeLimit);
        if (stopped()) break;
      }
      current.shiftEntry(entry);
      if (entry.id !== deadEntry) expandEntry(entry.id, entry.words, entry.start, entry.end);
    }
    current.clear();
  }
  for (const owner of peers.keys()) {
    flush(owner);
    const end: PeerMessage = { type: 'end' };
    peers.get(owner)!.postMessage(end);
  }
  finishLevelIfComplete();
}

/** The least violation of the level: a deadlock, else the least-keyed invariant violation. */
function levelSummary(): FoundViolation | undefined {
  let found = levelViolation;
  for (let index = 0; index < violators.length; index += 2) {
    const local = violators[index]!;
    const invariant = model.invariants[violators[index + 1]!]!.name;
    const key = order.keyOf(local);
    found = leastViolation({ invariant, deadlock: false, key, stateId: globalId(local) }, found);
  }
  levelViolation = undefined;
  violators.length = 0;
  return found;
}

/**
 * Once this worker has expanded its part of the level and every peer has marked its end, the
 * next level's frontier is complete: it becomes `current` before any batch of the next level
 * can arrive (peers start that level only after the coordinator hears from every worker).
 */
function finishLevelIfComplete(): void {
  if (endsAwaited > 0) return;
  endsAwaited = peers.size;
  [current, upcoming] = [upcoming, current];
  upcoming.clear();
  if (current.count > 0) depth = Math.max(depth, levelInProgress);
  publishCounters();
  const violation = levelSummary();
  const sortedKeys = order.finishLevel(parents.size);
  const reply: WorkerMessage = {
    type: 'level-done',
    upcoming: current.count,
    sortedKeys,
    ...(violation ? { violation } : {}),
  };
  levelInProgress = -1;
  port.postMessage(reply);
}

/** Expansion is synchronous, so peers' messages are handled only between expansions. */
function onPeerMessage(message: PeerMessage): void {
  if (message.type === 'batch') {
    receiveBatch(message.words, message.length);
    return;
  }
  endsAwaited--;
  if (levelInProgress >= 0) finishLevelIfComplete();
}

port.on('message', (message: CoordinatorMessage) => {
  switch (message.type) {
    case 'connect':
      for (const { peer, port: peerPort } of message.peers) {
        peers.set(peer, peerPort);
        outboxes.set(peer, new WordWriter(batchWordsMax + 1024));
        peerPort.on('message', onPeerMessage);
      }
      endsAwaited = peers.size;
      port.postMessage({ type: 'ready' } satisfies WorkerMessage);
      return;
    case 'level':
      if (message.level > 0) order.rank(message.sortedKeys);
      checkViolations = message.checkViolations;
      levelInProgress = message.level;
      expandLevel(message.level);
      return;
    case 'parent': {
      const local = localId(message.id);
      const reply: WorkerMessage = {
        type: 'parent',
        parent: parents.parentOf(local),
        action: parents.actionOf(local),
      };
      port.postMessage(reply);
      return;
    }
  }
});
