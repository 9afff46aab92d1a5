/**
 * Breadth-first search on worker threads (node:worker_threads), level-synchronous.
 *
 * The fingerprint space is partitioned: worker w owns the states whose fingerprint's low
 * word is w modulo the worker count, keeps their visited set, parent links and frontier,
 * and checks their invariants. A worker expanding its frontier sends each successor it does
 * not own to the owner, in batches, over a MessageChannel of their own. A level ends when
 * every worker has expanded its frontier and received every peer's end-of-level mark; the
 * coordinator (this file) then starts the next level. Because every level is finished before
 * the next starts, and a violation stops the search only once its level is finished, the
 * counts do not depend on the number of workers; nor does the counterexample, because each
 * state's parent is the one on its least path (level-order.ts), as on one thread (bfs.ts). A
 * --max-states or --time-limit stop ends a level midway: those counts may differ.
 *
 * State ids are global: local id * workers + worker index, so no worker has to ask another
 * for an id. A counterexample is rebuilt by asking owners for parent links.
 */
import { ok as assert } from 'node:assert';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { ModelSource } from './load-model.js';
import type { Params } from './model.js';
import type { Path, SearchOptions, SearchResult } from './search.js';
import {
  controlWords,
  StopReason,
  type CoordinatorMessage,
  leastViolation,
  type FoundViolation,
  type WorkerMessage,
  type WorkerSetup,
} from './parallel-protocol.js';

export interface ParallelRequest {
  readonly model: ModelSource;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly workers: number;
}

/**
 * Starts a worker on the compiled bfs-worker.js, or, when running from TypeScript sources
 * (tests under tsx), on bfs-worker.ts through tsx's loader, which a worker does not inherit.
 */
function startWorker(setup: WorkerSetup): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./bfs-worker.js', import.meta.url), { workerData: setup });
  }
  // Evaluated code resolves 'tsx' from the working directory: tests run from the repository.
  const target = new URL('./bfs-worker.ts', import.meta.url).href;
  const bootstrap =
    `import('tsx/esm/api').then((api) => { api.register(); ` +
    `return import(${JSON.stringify(target)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: setup });
}

class WorkerHandle {
  private waiting: ((message: WorkerMessage) => void)[] = [];
  private failure: Error | undefined;

  constructor(readonly worker: Worker) {
    worker.on('message', (message: WorkerMessage) => this.waiting.shift()?.(message));
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const resolve of this.waiting.splice(0)) {
        resolve({ type: 'failed', message: error.stack ?? error.message });
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`worker exited with code ${code}`)));
  }

  /** Sends a message and waits for the worker's next reply. */
  request(
    message: CoordinatorMessage,
    transfer: readonly MessagePort[] = [],
  ): Promise<WorkerMessage> {
    if (this.failure) return Promise.reject(this.failure);
    const reply = new Promise<WorkerMessage>((resolve) => this.waiting.push(resolve));
    this.worker.postMessage(message, [...transfer]);
    return reply;
  }
}

/** How often the coordinator looks at the caller's stop flag. */
const stopPollMs = 50;

export async function parallelBreadthFirstSearch(
  request: ParallelRequest,
  options: SearchOptions,
): Promise<SearchResult> {
  assert(request.workers >= 2, 'parallel search needs at least two workers');
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const control = new Int32Array(new SharedArrayBuffer(controlWords(request.workers) * 4));
  const handles: WorkerHandle[] = [];
  for (let index = 0; index < request.workers; index++) {
    const setup: WorkerSetup = {
      model: request.model,
      params: request.params,
      bug: request.bug,
      workerIndex: index,
      workerCount: request.workers,
      control,
      maxStates: options.maxStates ?? 0,
      deadlineEpochMs:
        options.timeLimitSeconds === undefined ? 0 : Date.now() + options.timeLimitSeconds * 1000,
      deadlock: options.deadlock !== false,
    };
    handles.push(new WorkerHandle(startWorker(setup)));
  }
  const progressTimer = options.onProgress
    ? setInterval(
        () => options.onProgress!(readProgress(control, request.workers, seconds())),
        options.progressIntervalMs ?? 3000,
      )
    : undefined;
  // The caller's stop flag (Ctrl-C) stops every worker as a time limit does, mid-level.
  const stopFlag = options.stopFlag;
  const stopWatch = stopFlag
    ? setInterval(() => {
        if (Atomics.load(stopFlag, 0) !== 0) {
          Atomics.compareExchange(control, 0, StopReason.None, StopReason.TimeLimit);
        }
      }, stopPollMs)
    : undefined;
  try {
    await connectPeers(handles);
    const stopAtViolation = options.continueAfterViolation !== true;
    return await runLevels(handles, control, request.workers, seconds, stopAtViolation);
  } finally {
    if (progressTimer) clearInterval(progressTimer);
    if (stopWatch) clearInterval(stopWatch);
    await Promise.all(handles.map((handle) => handle.worker.terminate()));
  }
}

async function connectPeers(handles: readonly WorkerHandle[]): Promise<void> {
  const ports = handles.map(() => new Map<number, MessagePort>());
  for (let a = 0; a < handles.length; a++) {
    for (let b = a + 1; b < handles.length; b++) {
      const channel = new MessageChannel();
      ports[a]!.set(b, channel.port1);
      ports[b]!.set(a, channel.port2);
    }
  }
  await Promise.all(
    handles.map((handle, index) => {
      const peers = [...ports[index]!].map(([peer, port]) => ({ peer, port }));
      return handle
        .request(
          { type: 'connect', peers },
          peers.map((entry) => entry.port),
        )
        .then((message) => expectReply(message, 'ready'));
    }),
  );
}

function expectReply(message: WorkerMessage, type: WorkerMessage['type']): void {
  if (message.type === 'failed') throw new Error(`worker failed: ${message.message}`);
  assert(message.type === type, `expected ${type} from a worker, got ${message.type}`);
}

async function runLevels(
  handles: readonly WorkerHandle[],
  control: Int32Array,
  workerCount: number,
  seconds: () => number,
  stopAtViolation: boolean,
): Promise<SearchResult> {
  let depth = 0;
  let violation: { invariant: string; path: Path } | undefined;
  let sortedKeys: Float64Array[] = [];
  for (let level = 0; ; level++) {
    const checkViolations = violation === undefined;
    const message = { type: 'level', level, sortedKeys, checkViolations } as const;
    const replies = await Promise.all(handles.map((handle) => handle.request(message)));
    let upcoming = 0;
    let found: FoundViolation | undefined;
    sortedKeys = [];
    for (const reply of replies) {
      expectReply(reply, 'level-done');
      if (reply.type !== 'level-done') continue;
      upcoming += reply.upcoming;
      sortedKeys.push(reply.sortedKeys);
      if (reply.upcoming > 0) depth = level;
      if (reply.violation) found = leastViolation(reply.violation, found);
    }
    if (!violation && found) {
      const path = await rebuildPath(handles, workerCount, found.stateId, found.extraAction);
      violation = { invariant: found.invariant, path };
    }
    const stop = Atomics.load(control, 0) as StopReason;
    if (upcoming === 0 || stop !== StopReason.None || (violation && stopAtViolation)) {
      const totals = readProgress(control, workerCount, seconds());
      const stoppedBy =
        stop === StopReason.MaxStates
          ? 'max-states'
          : stop === StopReason.TimeLimit
            ? 'time-limit'
            : undefined;
      return {
        result: violation ? 'violation' : stoppedBy ? 'incomplete' : 'ok',
        ...(violation ? { invariant: violation.invariant, path: violation.path } : {}),
        ...(stoppedBy && !violation ? { stoppedBy } : {}),
        distinctStates: totals.distinctStates,
        statesGenerated: totals.statesGenerated,
        depth,
        seconds: seconds(),
        exhaustive: true,
      };
    }
  }
}

/** Follows parent links across workers from a state back to its initial state. */
async function rebuildPath(
  handles: readonly WorkerHandle[],
  workerCount: number,
  stateId: number,
  extraAction: number | undefined,
): Promise<Path> {
  const actionIndexes: number[] = extraAction === undefined ? [] : [extraAction];
  let id = stateId;
  for (let steps = 0; ; steps++) {
    assert(steps < 1 << 24, 'parent chain too long');
    const reply = await handles[id % workerCount]!.request({ type: 'parent', id });
    assert(reply.type === 'parent', 'expected a parent link');
    if (reply.parent < 0)
      return { initialIndex: reply.action, actionIndexes: actionIndexes.reverse() };
    actionIndexes.push(reply.action);
    id = reply.parent;
  }
}

function readProgress(control: Int32Array, workerCount: number, seconds: number) {
  let statesGenerated = 0;
  let distinctStates = 0;
  let queue = 0;
  let depth = 0;
  for (let worker = 0; worker < workerCount; worker++) {
    const base = 4 + worker * 4;
    statesGenerated += Atomics.load(control, base);
    distinctStates += Atomics.load(control, base + 1);
    queue += Atomics.load(control, base + 2);
    depth = Math.max(depth, Atomics.load(control, base + 3));
  }
  return { statesGenerated, distinctStates, queue, depth, seconds };
}
