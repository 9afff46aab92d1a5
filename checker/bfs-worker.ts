/**
 * One worker of the parallel BFS (see parallel-bfs.ts). For each level it expands chunks of
 * the frontiers (its own first, then what the others have not claimed), inserts each
 * successor into the shared visited set itself, checks the invariants of the states new to
 * the set and queues them, in shared memory, for the next level. No state is copied between
 * workers. Workers wait for one another to grow the visited set (together, each a part,
 * before a level when the coordinator predicts the level needs it; mid-level, rarely, the
 * last to arrive rehashes) and at a level's end, where each waits until every one has
 * claimed its last chunk.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadModelSource } from './load-model.js';
import type { AnyModel } from './model.js';
import {
  arrivedWord,
  counterWord,
  cursorWord,
  doneWord,
  eventWord,
  leftWord,
  meetingsWord,
  growWord,
  sometimesWord,
  StopReason,
  violationWord,
  type CoordinatorMessage,
  type Frontier,
  type WorkerMessage,
  type WorkerSetup,
} from './parallel-protocol.js';
import { isDeadlock, violatedInvariant } from './search.js';
import { SharedFingerprintSet } from './shared-fingerprint-set.js';
import { StateQueue } from './state-store.js';
import { SuccessorKind, Successors } from './successors.js';
import { WordWriter } from './words.js';

/** States claimed at once from a frontier: small enough that a slow worker holds little. */
const chunkStates = 64;
/** Insertions counted locally before they are added to the shared count. */
const sizeBatch = 64;
/** A waiting worker looks again this often even unwoken (a worker that failed wakes none). */
const waitMs = 100;

const setup = workerData as WorkerSetup;
const definition = await loadModelSource(setup.model);
const model: AnyModel = definition.create(setup.params, setup.bug);
const port = parentPort!;
const control = setup.control;
const counterBase = counterWord(setup.workerIndex);
const visited = new SharedFingerprintSet(setup.visited);

// Shared memory: other workers read the frontier's entries when they claim a chunk.
let current = new StateQueue(true);
let upcoming = new StateQueue(true);
/** Where each entry of `upcoming` starts. */
const upcomingOffsets = new WordWriter();
/** The encoding of the state being expanded. */
const parentWords = new WordWriter();
/** The expansion loop the one-thread search runs too (explorer.ts). */
const successors = new Successors(model);
let checkViolations = true;
let statesGenerated = 0;
let inserted = 0;
let unpublishedInserts = 0;
/** Another worker failed while this one waited to grow the table: insert nothing more. */
let halted = false;
let depth = 0;
let levelInProgress = 0;

function stopped(): boolean {
  return Atomics.load(control, 0) !== StopReason.None;
}

function requestStop(reason: StopReason): void {
  Atomics.compareExchange(control, 0, StopReason.None, reason);
}

function failed(): boolean {
  return Atomics.load(control, 0) === StopReason.Failed;
}

/** Wakes the workers waiting for the level's end (awaitLevelEnd). */
function signal(): void {
  Atomics.add(control, eventWord, 1);
  Atomics.notify(control, eventWord);
}

function requestGrowth(): void {
  if (Atomics.compareExchange(control, growWord, 0, 1) === 0) signal();
}

/**
 * Waits until every worker has arrived at this meeting; the last to arrive runs `last`
 * first. False when a worker failed before arriving: that one never will.
 */
function meet(last?: () => void): boolean {
  const meetings = Atomics.load(control, meetingsWord);
  if (Atomics.add(control, arrivedWord, 1) + 1 === setup.workerCount) {
    last?.();
    Atomics.store(control, arrivedWord, 0);
    Atomics.add(control, meetingsWord, 1);
    Atomics.notify(control, meetingsWord);
    return true;
  }
  while (Atomics.load(control, meetingsWord) === meetings) {
    if (failed()) return false;
    Atomics.wait(control, meetingsWord, meetings, waitMs);
  }
  return true;
}

/**
 * Meets the other workers to grow the visited set mid-level: no worker touches the table
 * until every one has arrived, the last rehashes it, and all go on. A worker arrives from
 * its next batch of insertions or chunk, so the others insert at most a batch each past
 * 85 % full. Rare: the coordinator predicts the growth a level needs, which the workers
 * make together before it starts (growAhead).
 */
function joinGrowth(): void {
  meetOrHalt(() => {
    visited.growFor(visited.size);
    Atomics.store(control, growWord, 0);
  });
}

/**
 * A meeting of a growth: a worker that failed never arrives, so the table stays as it is
 * and this worker stops inserting (halted); false then.
 */
function meetOrHalt(last?: () => void): boolean {
  if (meet(last)) return true;
  halted = true;
  return false;
}

/**
 * Grows the visited set to `capacity` slots before the level starts, every worker
 * rehashing a part of it (shared-fingerprint-set.ts), where one thread rehashed while the
 * others waited: under load that one thread held the level up for its whole rehash.
 */
function growAhead(capacity: number): void {
  if (capacity <= visited.capacitySlots) return;
  const growth = { old: visited.capacitySlots, capacity };
  const part = visited.takePart(growth, setup.workerIndex, setup.workerCount);
  if (!meetOrHalt()) return;
  const left = visited.placePart(growth, part);
  Atomics.add(control, leftWord, left.length);
  if (!meetOrHalt() || Atomics.load(control, leftWord) === 0) return;
  visited.addAll(left);
  // Before any worker inserts again: it would count a fingerprint still left as new.
  meetOrHalt(() => Atomics.store(control, leftWord, 0));
}

function joinAnyGrowth(): void {
  if (Atomics.load(control, growWord) !== 0) joinGrowth();
}

/**
 * Waits until every worker has claimed its last chunk of the level, growing the table with
 * the others meanwhile when they ask.
 */
function awaitLevelEnd(): void {
  Atomics.add(control, doneWord, 1);
  signal();
  for (;;) {
    const seen = Atomics.load(control, eventWord);
    if (failed()) return;
    if (Atomics.load(control, growWord) !== 0) {
      joinGrowth();
      continue;
    }
    // Every worker done: none is inserting, so none asks to grow.
    if (Atomics.load(control, doneWord) === setup.workerCount) return;
    Atomics.wait(control, eventWord, seen, waitMs);
  }
}

function publishCounters(): void {
  Atomics.store(control, counterBase, statesGenerated);
  Atomics.store(control, counterBase + 1, inserted);
  Atomics.store(control, counterBase + 2, upcoming.count);
  Atomics.store(control, counterBase + 3, depth);
}

/** Adds this worker's recent insertions to the shared count: a limit, or time to grow. */
function publishInserts(): void {
  const size = visited.addToSize(unpublishedInserts);
  unpublishedInserts = 0;
  if (setup.maxStates > 0 && size >= setup.maxStates) requestStop(StopReason.MaxStates);
  if (visited.needsGrowth(size)) requestGrowth();
  joinAnyGrowth();
}

function recordViolation(): void {
  Atomics.store(control, violationWord, 1);
}

function checkState(state: unknown): void {
  if (checkViolations && violatedInvariant(model, state) !== null) recordViolation();
}

/** The `sometimes` properties no state this worker checked has satisfied yet, as bits. */
let sometimesPending = (1 << (model.sometimes?.length ?? 0)) - 1;

/** Marks, for every worker, the `sometimes` properties a new state satisfies. */
function checkSometimes(state: unknown): void {
  const properties = model.sometimes!;
  for (let index = 0; index < properties.length; index++) {
    const bit = 1 << index;
    if ((sometimesPending & bit) === 0 || !properties[index]!.holds(state)) continue;
    sometimesPending &= ~bit;
    Atomics.or(control, sometimesWord, bit);
  }
}

/**
 * Inserts successor k (to look up in the visited set): a new state is queued and checked
 * (its object decoded when the fast path gave none).
 */
function insert(k: number): void {
  if (halted || !visited.add(successors.highs[k]!, successors.lows[k]!)) return;
  inserted++;
  if (++unpublishedInserts >= sizeBatch) publishInserts();
  const start = successors.starts[k]!;
  upcomingOffsets.push(upcoming.pushWords(0, successors.words.words, start, successors.ends[k]!));
  if (!checkViolations && sometimesPending === 0) return;
  const state = successors.stateOf(k);
  if (sometimesPending !== 0) checkSometimes(state);
  checkState(state);
}

/** Counts, checks and inserts the successors generated, in action order. */
function visitSuccessors(): void {
  successors.probe(visited);
  for (let k = 0; k < successors.count; k++) {
    statesGenerated++;
    const kind = successors.kinds[k]!;
    // Outside the constraint: checked, never stored.
    if (kind === SuccessorKind.Outside) checkState(successors.states[k]);
    else if (kind === SuccessorKind.Inside) insert(k);
  }
}

/** Generates a queued state's successors; a state with none may be a deadlock. */
function expandEntry(words: Int32Array, start: number, end: number): void {
  parentWords.reset();
  parentWords.pushWords(words, start, end);
  successors.expand(parentWords);
  visitSuccessors();
  if (successors.count > 0 || !checkViolations || !setup.deadlock) return;
  const state = successors.state ?? successors.decoder.decode(parentWords.words, 0, end - start);
  if (isDeadlock(model, state, { deadlock: true })) recordViolation();
}

/** Expands the chunks of `owner`'s frontier that no worker has claimed yet. */
function expandFrontier(owner: number, frontier: Frontier): void {
  const cursor = cursorWord(setup.workerCount, owner);
  const { words, offsets } = frontier;
  const deadline = setup.deadlineEpochMs;
  for (;;) {
    joinAnyGrowth();
    const first = Atomics.add(control, cursor, chunkStates);
    if (first >= offsets.length) return;
    publishCounters();
    if (deadline > 0 && Date.now() >= deadline) requestStop(StopReason.TimeLimit);
    if (stopped()) return;
    const last = Math.min(first + chunkStates, offsets.length);
    for (let index = first; index < last; index++) {
      const offset = offsets[index]!;
      const start = offset + 2;
      expandEntry(words, start, start + words[offset]!);
    }
  }
}

/**
 * Level 0 generates the initial states (on worker 0); level L >= 1 expands the states of
 * depth L - 1 into those of depth L: this worker's frontier first, then the others'.
 */
function expandLevel(level: number, frontiers: readonly Frontier[]): void {
  if (level === 0) {
    if (setup.workerIndex === 0) {
      successors.initial(model.initialStates());
      visitSuccessors();
    }
  } else {
    for (let step = 0; step < setup.workerCount && !stopped(); step++) {
      const owner = (setup.workerIndex + step) % setup.workerCount;
      expandFrontier(owner, frontiers[owner]!);
    }
  }
  finishLevel();
}

/** Reports the level built, once every worker has finished it. */
function finishLevel(): void {
  publishInserts();
  awaitLevelEnd();
  if (upcoming.count > 0) depth = Math.max(depth, levelInProgress);
  publishCounters();
  const offsets = new Int32Array(new SharedArrayBuffer(upcomingOffsets.length * 4));
  offsets.set(upcomingOffsets.words.subarray(0, upcomingOffsets.length));
  const reply: WorkerMessage = {
    type: 'level-done',
    upcoming: upcoming.count,
    frontier: { words: upcoming.buffer, offsets },
  };
  port.postMessage(reply);
}

/** The level built last becomes the one to expand. */
function startLevel(level: number): void {
  if (level > 0) {
    [current, upcoming] = [upcoming, current];
    upcoming.clear();
    upcomingOffsets.reset();
  }
  levelInProgress = level;
}

function handle(message: CoordinatorMessage): void {
  checkViolations = message.checkViolations;
  startLevel(message.level);
  growAhead(message.growTo);
  expandLevel(message.level, message.frontiers);
}

/**
 * A model that throws (model-guard.ts) stops every worker, and the parent rethrows its error
 * as one thread would: an uncaught error would end this worker alone, as a bare 'error' event
 * without the error's class, while the others went on with their level.
 */
function reportFailure(error: unknown): void {
  requestStop(StopReason.Failed);
  const failure: WorkerMessage = error instanceof Error
    ? { type: 'failed', name: error.name, message: error.message, stack: error.stack ?? '' }
    : { type: 'failed', name: 'Error', message: String(error), stack: '' };
  port.postMessage(failure);
}

port.on('message', (message: CoordinatorMessage) => {
  try {
    handle(message);
  } catch (error) {
    reportFailure(error);
  }
});
port.postMessage({ type: 'ready' } satisfies WorkerMessage);
