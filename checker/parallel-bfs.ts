/**
 * Breadth-first search on worker threads (node:worker_threads), level-synchronous, with the
 * visited set and the frontiers in shared memory.
 *
 * Every worker inserts the successors it generates straight into one shared fingerprint set
 * (shared-fingerprint-set.ts) and queues the new ones in its own shared queue. A level's
 * frontier is expanded in chunks claimed with an atomic cursor: a worker expands its own
 * queue, then the unclaimed chunks of the others', so a worker on a busy core holds a level
 * up by one chunk, not by its share (Stateright's job broker and TLC's shared queue serve
 * the same end). Nothing is copied between workers; the workers grow the visited set among
 * themselves (bfs-worker.ts), and the coordinator (this file) only starts each level once
 * every worker has finished the last.
 *
 * Results do not depend on the number of workers: a level is finished before the next
 * starts, so the set of states at each depth, and with it every count, is that of one
 * thread. Workers keep no parent links (5 bytes a state less): when a level holds a
 * violation, the search stops at its end, as on one thread, and the counterexample (the
 * least shortest path, explorer.ts) is rebuilt by one-thread BFS up to that level, which
 * also supplies the verdict. With --continue the counts are the whole space's and the first
 * violation is rebuilt the same way. A --max-states or --time-limit stop ends a level midway:
 * those counts may differ.
 */
import { ok as assert } from 'node:assert';
import { breadthFirstSearch } from './bfs.js';
import { loadModelSource, type ModelSource } from './load-model.js';
import type { Params } from './model.js';
import { unreachedSometimes, type SearchOptions, type SearchResult } from './search.js';
import {
  controlWords,
  counterWord,
  cursorWord,
  doneWord,
  sometimesMax,
  sometimesWord,
  StopReason,
  violationWord,
  type CoordinatorMessage,
  type Frontier,
  type WorkerMessage,
  type WorkerSetup,
} from './parallel-protocol.js';
import { SharedFingerprintSet } from './shared-fingerprint-set.js';
import {
  expectReply, startWorker, WorkerHandle, type FailedReply,
} from './worker-handle.js';
import {
  CheckpointClock,
  forEachFrontierEntry,
  readCheckpoint,
  writeCheckpoint,
  type Checkpoint,
  type CheckpointOptions,
} from './checkpoint.js';

export interface ParallelRequest {
  readonly model: ModelSource;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly workers: number;
}

type Handle = WorkerHandle<CoordinatorMessage, WorkerMessage>;

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
  const visited = new SharedFingerprintSet();
  const handles: Handle[] = [];
  for (let index = 0; index < request.workers; index++) {
    const setup: WorkerSetup = {
      model: request.model,
      params: request.params,
      bug: request.bug,
      workerIndex: index,
      workerCount: request.workers,
      control,
      visited: visited.buffer,
      maxStates: options.maxStates ?? 0,
      deadlineEpochMs:
        options.timeLimitSeconds === undefined ? 0 : Date.now() + options.timeLimitSeconds * 1000,
      deadlock: options.deadlock !== false,
    };
    handles.push(new WorkerHandle(startWorker(import.meta.url, 'bfs-worker', setup)));
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
    const ready = await Promise.all(handles.map((handle) => handle.next()));
    ready.forEach((message) => expectReply(message, 'ready'));
    const stopAtViolation = options.continueAfterViolation !== true;
    const search = new LevelRun(handles, control, visited, stopAtViolation, options.checkpoint);
    const counts = await search.run();
    options.onFinished?.(visited.bytes);
    return await withVerdict(request, options, counts, seconds);
  } finally {
    if (progressTimer) clearInterval(progressTimer);
    if (stopWatch) clearInterval(stopWatch);
    await Promise.all(handles.map((handle) => handle.worker.terminate()));
  }
}

/** What the workers found: the counts, whether a violation was seen, why they stopped. */
interface LevelCounts {
  readonly distinctStates: number;
  readonly statesGenerated: number;
  readonly depth: number;
  readonly violationSeen: boolean;
  readonly stop: StopReason;
  /** Bit i: `sometimes` property i held in some state. */
  readonly sometimesMask: number;
}

/** Runs the levels: each starts once every worker has finished the last. */
class LevelRun {
  private frontiers: Frontier[] = [];
  private depth = 0;
  /** The capacity the workers grow the visited set to before the next level (0: none). */
  private growTo = 0;
  /** Counts carried over from a checkpoint. */
  private generatedBefore = 0;
  private distinctBefore = 0;
  private readonly clock: CheckpointClock | undefined;

  constructor(
    private readonly handles: readonly Handle[],
    private readonly control: Int32Array,
    private readonly visited: SharedFingerprintSet,
    private readonly stopAtViolation: boolean,
    private readonly checkpoint: CheckpointOptions | undefined,
  ) {
    this.clock = checkpoint ? new CheckpointClock(checkpoint) : undefined;
  }

  /** Starts from the checkpoint: its fingerprints, counts and frontier (as worker 0's). */
  private restore(resumed: Checkpoint): number {
    this.visited.restore(resumed.visited);
    this.generatedBefore = resumed.statesGenerated;
    this.distinctBefore = resumed.visited.length / 2;
    this.depth = resumed.depth;
    Atomics.store(this.control, sometimesWord, resumed.sometimesMask);
    const words = new Int32Array(new SharedArrayBuffer(resumed.frontier.byteLength));
    words.set(resumed.frontier);
    const offsets = new Int32Array(new SharedArrayBuffer(resumed.frontierCount * 4));
    let next = 0;
    forEachFrontierEntry(words, (_, start) => (offsets[next++] = start - 2));
    const empty = { words: new Int32Array(0), offsets: new Int32Array(0) };
    this.frontiers = this.handles.map((_, index) => (index === 0 ? { words, offsets } : empty));
    // Level L here expands the states of depth L - 1 (a checkpoint's level is their depth).
    return resumed.level + 1;
  }

  /** Writes the frontier about to be expanded, with the counts, between levels. */
  private save(level: number): void {
    let words = 0;
    for (const { offsets } of this.frontiers) words += offsets.length * 3;
    for (const { words: source, offsets } of this.frontiers) {
      for (const offset of offsets) words += source[offset]!;
    }
    const frontier = new Int32Array(words);
    let position = 0;
    for (const { words: source, offsets } of this.frontiers) {
      for (const offset of offsets) {
        const length = source[offset]!;
        frontier[position] = length;
        frontier.set(source.subarray(offset + 2, offset + 2 + length), position + 2);
        frontier[position + 2 + length] = length;
        position += length + 3;
      }
    }
    const totals = readProgress(this.control, this.handles.length, 0);
    writeCheckpoint(this.checkpoint!.directory, {
      identity: this.checkpoint!.identity,
      level: level - 1,
      statesGenerated: this.generatedBefore + totals.statesGenerated,
      depth: this.depth,
      sometimesMask: Atomics.load(this.control, sometimesWord),
      visited: this.visited.fingerprints(),
      frontier,
      frontierCount: this.frontiers.reduce((sum, { offsets }) => sum + offsets.length, 0),
    });
  }

  async run(): Promise<LevelCounts> {
    const workerCount = this.handles.length;
    const resumed = this.checkpoint?.resume ? readCheckpoint(this.checkpoint) : undefined;
    const first = resumed ? this.restore(resumed) : 0;
    for (let level = first; ; level++) {
      const checkViolations = Atomics.load(this.control, violationWord) === 0;
      if (level > first && checkViolations && this.clock?.due()) this.save(level);
      // Every worker has finished the last level: no claim on a frontier is in flight.
      for (let worker = 0; worker < workerCount; worker++) {
        Atomics.store(this.control, cursorWord(workerCount, worker), 0);
      }
      Atomics.store(this.control, doneWord, 0);
      const frontiers = this.frontiers;
      const expanded = frontiers.reduce((sum, { offsets }) => sum + offsets.length, 0);
      const growTo = this.growTo;
      const message = { type: 'level', level, frontiers, checkViolations, growTo } as const;
      const upcoming = this.collect(
        await Promise.all(this.handles.map((handle) => handle.request(message))),
      );
      if (upcoming > 0) this.depth = level;
      this.growTo = this.capacityAhead(expanded, upcoming);
      const stop = Atomics.load(this.control, 0) as StopReason;
      const violationSeen = Atomics.load(this.control, violationWord) !== 0;
      if (upcoming === 0 || stop !== StopReason.None || (violationSeen && this.stopAtViolation)) {
        const totals = readProgress(this.control, workerCount, 0);
        const sometimesMask = Atomics.load(this.control, sometimesWord);
        return {
          distinctStates: this.distinctBefore + totals.distinctStates,
          statesGenerated: this.generatedBefore + totals.statesGenerated,
          depth: this.depth,
          violationSeen,
          stop,
          sometimesMask,
        };
      }
    }
  }

  /**
   * The capacity the workers grow the visited set to before the next level, for as many
   * new states as this level's ratio of new states to states expanded predicts: a growth
   * mid-level stops every worker until the slowest arrives, which on a loaded machine is
   * the cost of a worker's core being taken (docs/scale.md).
   */
  private capacityAhead(expanded: number, upcoming: number): number {
    if (expanded === 0 || upcoming === 0) return 0;
    const size = this.visited.size;
    return this.visited.capacityAhead(size + Math.ceil((upcoming * upcoming) / expanded));
  }

  /** Takes the workers' frontiers for the next level; returns how many states they hold. */
  private collect(replies: (WorkerMessage | FailedReply)[]): number {
    let upcoming = 0;
    this.frontiers = [];
    for (const reply of replies) {
      expectReply(reply, 'level-done');
      if (reply.type !== 'level-done') continue;
      upcoming += reply.upcoming;
      this.frontiers.push(reply.frontier);
    }
    return upcoming;
  }
}

/**
 * The result: the workers' counts, or, once they saw a violation, the verdict and path of
 * one-thread BFS (the same counts when the search stopped at that level).
 */
async function withVerdict(
  request: ParallelRequest,
  options: SearchOptions,
  counts: LevelCounts,
  seconds: () => number,
): Promise<SearchResult> {
  const stoppedBy =
    counts.stop === StopReason.MaxStates
      ? 'max-states'
      : counts.stop === StopReason.TimeLimit
        ? 'time-limit'
        : undefined;
  const definition = await loadModelSource(request.model);
  const model = definition.create(request.params, request.bug);
  assert((model.sometimes?.length ?? 0) <= sometimesMax, 'too many sometimes properties');
  const complete = !stoppedBy && (!counts.violationSeen || options.continueAfterViolation);
  const reached = (index: number) => (counts.sometimesMask & (1 << index)) !== 0;
  const base = {
    distinctStates: counts.distinctStates,
    statesGenerated: counts.statesGenerated,
    depth: counts.depth,
    exhaustive: true,
    ...(complete && model.sometimes?.length
      ? { sometimesUnreached: unreachedSometimes(model, reached) }
      : {}),
  };
  if (!counts.violationSeen) {
    const result = stoppedBy ? 'incomplete' : 'ok';
    return { result, ...(stoppedBy ? { stoppedBy } : {}), ...base, seconds: seconds() };
  }
  const {
    onProgress: _progress,
    onFinished: _finished,
    continueAfterViolation: _continue,
    checkpoint: _saved,
    ...rest
  } = options;
  const single = breadthFirstSearch(model, rest);
  if (single.result !== 'violation') {
    // A limit stopped the workers after their violation, and the one thread before it.
    return { ...single, seconds: seconds() };
  }
  const verdict = { result: single.result, invariant: single.invariant!, path: single.path! };
  if (options.continueAfterViolation) return { ...verdict, ...base, seconds: seconds() };
  return { ...single, seconds: seconds() };
}

function readProgress(control: Int32Array, workerCount: number, seconds: number) {
  let statesGenerated = 0;
  let distinctStates = 0;
  let queue = 0;
  let depth = 0;
  for (let worker = 0; worker < workerCount; worker++) {
    const base = counterWord(worker);
    statesGenerated += Atomics.load(control, base);
    distinctStates += Atomics.load(control, base + 1);
    queue += Atomics.load(control, base + 2);
    depth = Math.max(depth, Atomics.load(control, base + 3));
  }
  return { statesGenerated, distinctStates, queue, depth, seconds };
}
