/**
 * One worker of the parallel BFS (see parallel-bfs.ts): owns a partition of the fingerprint
 * space, expands its frontier level by level, and sends successors it does not own to their
 * owners in batches of [parent id, action index, fingerprint high, low, length, words...].
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { assert } from '../spec/assert.js';
import { FingerprintSet } from './fingerprint-set.js';
import { resolveModel } from './load-model.js';
import { fingerprint, fingerprintWords } from './fingerprint.js';
import type { AnyModel } from './model.js';
import {
  distinctWord,
  StopReason,
  type CoordinatorMessage,
  type FoundViolation,
  type PeerMessage,
  type WorkerMessage,
  type WorkerSetup,
} from './parallel-protocol.js';
import { violatedInvariant } from './search.js';
import { emptyQueueEntry, noParent, ParentTable, StateQueue } from './state-store.js';
import { WordReader, WordWriter } from './words.js';

const batchWordsMax = 1 << 16;
const stopCheckStride = 256;

const setup = workerData as WorkerSetup;
// A registered name, or the module path of a model loaded from outside spec/.
const definition = await resolveModel(setup.model);
assert(definition !== undefined, `unknown model ${setup.model}`);
const model: AnyModel = definition.create(setup.params, setup.bug);
const port = parentPort!;
const control = setup.control;
const counterBase = 4 + setup.workerIndex * 4;

const visited = new FingerprintSet();
const parents = new ParentTable();
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
let statesGenerated = 0;
let depth = 0;
let violation: FoundViolation | undefined;

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

/**
 * Checks a state's invariants. `stateId` is its global id, or, with `extraAction`, its
 * parent's: a state outside the bounds or owned by another worker has no id here.
 */
function check(state: unknown, stateId: number, extraAction?: number): void {
  if (violation && setup.continueAfterViolation) return;
  const invariant = violatedInvariant(model, state);
  if (invariant === null) return;
  if (!violation)
    violation = { invariant, stateId, ...(extraAction === undefined ? {} : { extraAction }) };
  if (!setup.continueAfterViolation) requestStop(StopReason.Violation);
}

/** Adds a state this worker owns; returns its global id, or -1 when it was already known. */
function insert(
  high: number,
  low: number,
  parentId: number,
  action: number,
  words: Int32Array,
  start: number,
  end: number,
): number {
  if (!visited.add(high, low)) return -1;
  const id = globalId(parents.add(parentId, action));
  upcoming.pushWords(id, words, start, end);
  const distinct = Atomics.add(control, distinctWord, 1) + 1;
  if (setup.maxStates > 0 && distinct >= setup.maxStates) requestStop(StopReason.MaxStates);
  return id;
}

/**
 * Handles one generated state. A state another worker owns is checked here, where it is
 * still an object, and sent as words: the owner then only deduplicates it.
 */
function generate(state: unknown, parentId: number, action: number): void {
  if (stopped() && !setup.continueAfterViolation) return;
  statesGenerated++;
  if (model.withinBounds && !model.withinBounds(state)) {
    check(state, parentId, action);
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
  if (owner === setup.workerIndex) {
    const id = insert(high, low, parentId, action, encoded.words, 0, encoded.length);
    if (id >= 0) check(state, id);
    return;
  }
  check(state, parentId, action);
  const outbox = outboxes.get(owner)!;
  outbox.push(parentId);
  outbox.push(action);
  outbox.push(high);
  outbox.push(low);
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
  for (let position = 0; position < length;) {
    const parentId = words[position]!;
    const action = words[position + 1]!;
    const high = words[position + 2]!;
    const low = words[position + 3]!;
    const size = words[position + 4]!;
    const start = position + 5;
    position = start + size;
    if (stopped() && !setup.continueAfterViolation) continue;
    insert(high, low, parentId, action, words, start, start + size);
  }
}

/**
 * Level 0 generates the initial states (on worker 0, which routes them to their owners);
 * level L >= 1 expands the states of depth L - 1 into those of depth L.
 */
function expandLevel(level: number): void {
  if (level === 0) {
    if (setup.workerIndex === 0) {
      model.initialStates().forEach((state, index) => generate(state, noParent, index));
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
      reader.words = entry.words;
      reader.position = entry.start;
      reader.end = entry.end;
      const state = model.codec.decode(reader);
      const actions = model.actions(state);
      for (let index = 0; index < actions.length; index++) {
        const successor = model.next(state, actions[index]);
        if (successor !== null) generate(successor, entry.id, index);
      }
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
  const reply: WorkerMessage = {
    type: 'level-done',
    upcoming: current.count,
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
