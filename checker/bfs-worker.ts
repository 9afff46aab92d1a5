/**
 * One worker of the parallel BFS (see parallel-bfs.ts): owns a partition of the fingerprint
 * space, expands its frontier level by level, and sends successors it does not own to their
 * owners in batches of [parent id, action index, parent rank, fingerprint high, low, length,
 * words...]; the owner checks the invariants of the states that are new to it. For each state
 * of the level it builds it keeps the least path key (level-order.ts), so that parent links,
 * and with them counterexamples, do not depend on the order in which batches arrive.
 */
import { ok as assert } from 'node:assert';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { FingerprintIndex } from './fingerprint-index.js';
import { loadModelModule } from './load-model.js';
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
import { sameWords, WordReader, WordWriter } from './words.js';

const batchWordsMax = 1 << 16;
const stopCheckStride = 256;
const headerWords = 6;

const setup = workerData as WorkerSetup;
const definition = await loadModelModule(setup.model.module, setup.model.name);
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
/** The encoding of the state being expanded. */
const parentWords = new WordWriter();
/** Successors straight from words (Model.successorWords): no state object per successor. */
const fastSuccessors =
  model.successorWords !== undefined && !model.withinBounds && !model.writeView;
let fastParent = 0;
let fastRank = 0;
let fastCount = 0;
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
 * Adds a state this worker owns to the level being built and returns its local id, or gives
 * a state of that level a lesser path and returns -1 (also when the state is older). With a
 * canonical view (symmetry) the stored representative follows the least path.
 */
function insert(
  high: number,
  low: number,
  parentId: number,
  action: number,
  key: number,
  words: Int32Array,
  start: number,
  end: number,
): number {
  const local = visited.findOrAdd(high, low, parents.size);
  if (local < 0) {
    const id = globalId(parents.add(parentId, action));
    order.add(key, upcoming.pushWords(id, words, start, end));
    // The shared count is written by every worker: only a --max-states run pays for it.
    if (setup.maxStates > 0 && Atomics.add(control, distinctWord, 1) + 1 >= setup.maxStates) {
      requestStop(StopReason.MaxStates);
    }
    return parents.size - 1;
  }
  if (!order.inUpcoming(local) || key >= order.keyOf(local)) return -1;
  parents.relink(local, parentId, action);
  const offset = order.offsetOf(local);
  const moved = model.writeView ? upcoming.replaceWords(offset, words, start, end) : offset;
  order.lower(local, key, moved);
  return -1;
}

/** Checks a new state of the level being built; its least key is known at the level's end. */
function checkNew(local: number, state: unknown): void {
  const code = invariantCode(state);
  if (code > 0) violators.push(local, code - 1);
}

/** Checks a new state that arrived as words: decoding only new states is cheaper. */
function checkNewWords(local: number, words: Int32Array, start: number, end: number): void {
  if (!checkViolations) return;
  reader.words = words;
  reader.position = start;
  reader.end = end;
  checkNew(local, model.codec.decode(reader));
}

/** A state outside the bounds is checked, never stored: its key is its parent's and action. */
function checkOutside(state: unknown, parentId: number, action: number, rank: number): void {
  const code = invariantCode(state);
  if (code === 0) return;
  const invariant = model.invariants[code - 1]!.name;
  const key = pathKey(rank, action);
  const candidate = { invariant, deadlock: false, key, stateId: parentId, extraAction: action };
  levelViolation = leastViolation(candidate, levelViolation);
}

/** Inserts the successor in `encoded` (fingerprinted) or sends it to its owner. */
function route(parentId: number, action: number, parentRank: number, state: unknown): void {
  const { high, low } = fingerprint;
  const owner = ownerOf(low);
  if (owner === setup.workerIndex) {
    const key = pathKey(parentRank, action);
    const local = insert(high, low, parentId, action, key, encoded.words, 0, encoded.length);
    if (local < 0) return;
    if (state === undefined) checkNewWords(local, encoded.words, 0, encoded.length);
    else checkNew(local, state);
    return;
  }
  const outbox = outboxes.get(owner)!;
  outbox.push(parentId);
  outbox.push(action);
  outbox.push(parentRank);
  outbox.push(high);
  outbox.push(low);
  outbox.push(encoded.length);
  outbox.pushWords(encoded.words, 0, encoded.length);
  if (outbox.length >= batchWordsMax) flush(owner);
}

/** Handles one generated state object. */
function generate(state: unknown, parentId: number, action: number, parentRank: number): void {
  statesGenerated++;
  if (model.withinBounds && !model.withinBounds(state)) {
    checkOutside(state, parentId, action, parentRank);
    return;
  }
  encoded.reset();
  model.codec.encode(state, encoded);
  // A step that changes nothing leads to a known state (the parent).
  if (sameWords(encoded, parentWords)) return;
  if (model.writeView) {
    view.reset();
    model.writeView(state, view);
    fingerprintWords(view.words, 0, view.length);
  } else {
    fingerprintWords(encoded.words, 0, encoded.length);
  }
  route(parentId, action, parentRank, state);
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
    const start = position + headerWords;
    const end = start + words[position + 5]!;
    position = end;
    const local = insert(high, low, parentId, action, key, words, start, end);
    if (local >= 0) checkNewWords(local, words, start, end);
  }
}

/** Generates a queued state's successors; a state with none may be a deadlock. */
function expandEntry(id: number, words: Int32Array, start: number, end: number): void {
  const rank = order.rankOf(localId(id));
  parentWords.reset();
  parentWords.pushWords(words, start, end);
  let successors = 0;
  let state: unknown;
  if (fastSuccessors) {
    fastParent = id;
    fastRank = rank;
    fastCount = 0;
    model.successorWords!(parentWords.words, 0, parentWords.length, encoded, emitFast);
    successors = fastCount;
  } else {
    reader.words = words;
    reader.position = start;
    reader.end = end;
    state = model.codec.decode(reader);
    const actions = model.actions(state);
    for (let index = 0; index < actions.length; index++) {
      const successor = model.next(state, actions[index]);
      if (successor === null) continue;
      successors++;
      if (successor === state) statesGenerated++;
      else generate(successor, id, index, rank);
    }
  }
  if (successors > 0 || !checkViolations || !setup.deadlock) return;
  state ??= model.codec.decode(new WordReader(parentWords.words, 0, parentWords.length));
  if (!isDeadlock(model, state, { deadlock: true })) return;
  const candidate = { invariant: deadlockName, deadlock: true, key: rank, stateId: id };
  levelViolation = leastViolation(candidate, levelViolation);
}

/** The fast path's successor, already in `encoded` (see Model.successorWords). */
function emitFast(action: number): void {
  fastCount++;
  statesGenerated++;
  if (sameWords(encoded, parentWords)) return;
  fingerprintWords(encoded.words, 0, encoded.length);
  route(fastParent, action, fastRank, undefined);
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
      if (message.level > 0) order.rank(message.sortedKeys, setup.workerIndex);
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
