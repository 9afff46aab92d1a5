/**
 * The disk search (disk-bfs.ts) on several worker threads: `check --disk DIR --workers N`.
 * The main thread keeps every file and decides every state, as on one thread; the workers
 * only generate successors. It reads the level's frontier into chunks, sends them to the
 * workers (four a worker in flight, to whichever has fewer) and takes their replies in the
 * frontier's order: each successor's fingerprint goes against the batch's table and, when not
 * in it, into the disk set with its parent link, exactly as the one-thread explorer hands it
 * on. So the candidates, and with them every count, the frontier's order, the parent links,
 * the checkpoints and the counterexample, are those of one thread, whatever the number of
 * workers and whichever finishes first. A state the worker flags (no successor; a successor
 * outside the bounds that violates an invariant) the main thread expands itself. Levels
 * before the first large one are expanded on the main thread (`workersStartStates`).
 */
import { ok as assert } from 'node:assert';
import { withRebuiltPath } from './bfs.js';
import { DiskSearch } from './disk-bfs.js';
import {
  candidateHeaderWords,
  expandedBySelf,
  stateHeaderWords,
  type ChunkReply,
  type ChunkRequest,
  type DiskWorkerSetup,
  type ExpandedChunk,
} from './disk-parallel-protocol.js';
import type { AnyModel } from './model.js';
import type { ParallelRequest } from './parallel-bfs.js';
import type { SearchOptions, SearchResult } from './search.js';
import { emptyQueueEntry } from './state-store.js';
import { WordWriter } from './words.js';
import { expectReply, startWorker, WorkerHandle } from './worker-handle.js';

/** Frontier states a chunk holds: enough that a message's cost is small beside its work. */
const chunkStates = 2048;
/**
 * Chunks in flight a worker: one being expanded, the others waiting, so that neither side
 * waits on the other each chunk when the machine is loaded (a thread woken waits for a core).
 */
const inFlightPerWorker = 4;

type Handle = WorkerHandle<ChunkRequest, ChunkReply>;

/**
 * Slots of each worker's cache of fingerprints (disk-expand-worker.ts; 8 bytes a slot): 2^16,
 * less under a cap below 16 MiB (a sixteenth of it for all). On TwoPhase 8 RMs it keeps 61 %
 * of the successors from the main thread (7.97 million to 3.14); 2^20 slots keep 65 %, at
 * more worker time (a cache that no longer fits the processor's).
 */
function seenSlots(memoryBytes: number, workers: number): number {
  const bits = Math.floor(Math.log2(memoryBytes / 16 / 8 / workers));
  return 2 ** Math.min(Math.max(bits, 4), 16);
}

/**
 * A level of this many states or more starts the workers (about 0.3 s of CPU each to load
 * the models, the cost of a whole small search): the levels before it, and those until the
 * workers are ready, are expanded on the main thread.
 */
const workersStartStates = 1 << 16;

/** `startOnMain` false: the workers start first and expand every level (tests of their path). */
export async function parallelDiskSearch(
  model: AnyModel,
  request: ParallelRequest,
  options: SearchOptions,
  startOnMain = true,
): Promise<SearchResult> {
  const setup: DiskWorkerSetup = { model: request.model, params: request.params,
    bug: request.bug, seenSlots: seenSlots(options.disk!.memoryBytes, request.workers) };
  const pool = new WorkerPool(setup, request.workers);
  try {
    if (!startOnMain) await pool.start();
    const search = new DiskSearch(model, options);
    let finished = false;
    try {
      const levels = new ChunkedLevels(search, pool.handles);
      for (let level = search.start(); search.beginLevel(level); level++) {
        if (search.frontier.current >= workersStartStates) void pool.start();
        // Lets the workers' 'ready' in: this thread yields between levels only.
        if (pool.starting) await new Promise((resolve) => setImmediate(resolve));
        pool.throwFailure();
        if (pool.ready) await levels.expand(level);
        else search.expandHere(level);
        search.endLevel();
      }
      const result = search.explorer.result();
      finished = result.result !== 'incomplete';
      return withRebuiltPath(model, options, result);
    } finally {
      search.close(finished);
    }
  } finally {
    await pool.stop();
  }
}

/** The workers, started once a level is large enough (or at once). */
class WorkerPool {
  readonly handles: Handle[] = [];
  ready = false;
  private started: Promise<void> | undefined;
  private failure: unknown;

  constructor(private readonly setup: DiskWorkerSetup, private readonly workers: number) {}

  get starting(): boolean {
    return this.started !== undefined && !this.ready;
  }

  /** Starts the workers; resolves once all are ready, or failed (`throwFailure`). */
  start(): Promise<void> {
    if (this.started) return this.started;
    for (let index = 0; index < this.workers; index++) {
      this.handles.push(new WorkerHandle(
        startWorker(import.meta.url, 'disk-expand-worker', this.setup)));
    }
    this.started = Promise.all(this.handles.map((handle) => handle.next())).then((messages) => {
      messages.forEach((message) => expectReply(message, 'ready'));
      this.ready = true;
    }).catch((error: unknown) => {
      this.failure = error;
    });
    return this.started;
  }

  /** A worker that failed to start (a model module that does not load) fails the search. */
  throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  stop(): Promise<unknown> {
    return Promise.all(this.handles.map((handle) => handle.worker.terminate()));
  }
}

interface InFlight {
  /** The index in the level of the chunk's first state. */
  readonly first: number;
  readonly worker: number;
  readonly reply: Promise<ChunkReply | { readonly type: 'failed' }>;
}

/** Expands a level's frontier on the workers and applies their replies in order. */
class ChunkedLevels {
  private readonly entry = emptyQueueEntry();
  private readonly chunks: Int32Array[] = [];
  private readonly outs: ArrayBuffer[] = [];
  /** Per worker, its chunks in flight (none between levels). */
  private outstanding: number[] = [];
  private readonly progress: () => ReturnType<DiskSearch['explorer']['progress']>;

  /** `handles`: the pool's, filled once it starts. */
  constructor(private readonly search: DiskSearch, private readonly handles: readonly Handle[]) {
    this.progress = () => search.explorer.progress();
  }

  async expand(level: number): Promise<void> {
    const { explorer, frontier } = this.search;
    const inFlight: InFlight[] = [];
    this.outstanding = this.handles.map(() => 0);
    let next = 0;
    const fill = () => {
      while (explorer.running && frontier.current > 0 &&
        inFlight.length < this.handles.length * inFlightPerWorker) {
        const worker = this.leastBusy();
        const chunk = this.readChunk();
        const out = this.outs.pop() ?? new ArrayBuffer(1 << 16);
        const message: ChunkRequest = { chunk: chunk.words, count: chunk.count, out };
        const reply = this.handles[worker]!.request(message,
          [chunk.words.buffer as ArrayBuffer, out]);
        inFlight.push({ first: next, worker, reply });
        this.outstanding[worker]!++;
        next += chunk.count;
      }
    };
    fill();
    // Every chunk sent is awaited, also after a stop: its buffers come back.
    for (let head = inFlight.shift(); head !== undefined; head = inFlight.shift()) {
      const reply = await head.reply;
      this.outstanding[head.worker]!--;
      expectReply(reply, 'expanded');
      if (reply.type !== 'expanded') continue;
      fill();
      if (explorer.running) this.apply(reply, level, head.first);
      this.chunks.push(reply.chunk);
      this.outs.push(reply.out);
    }
  }

  private leastBusy(): number {
    let least = 0;
    for (let worker = 1; worker < this.outstanding.length; worker++) {
      if (this.outstanding[worker]! < this.outstanding[least]!) least = worker;
    }
    return least;
  }

  /** The frontier's next states, up to a chunk's worth, each its length then its words. */
  private readChunk(): { readonly words: Int32Array; readonly count: number } {
    const { frontier } = this.search;
    const writer = new WordWriter(0);
    writer.words = this.chunks.pop() ?? new Int32Array(1 << 14);
    let count = 0;
    for (; count < chunkStates && frontier.shift(this.entry); count++) {
      const { words, start, end } = this.entry;
      writer.push(end - start);
      writer.pushWords(words, start, end);
    }
    return { words: writer.words, count };
  }

  /** A chunk's successors, state by state, as one thread's explorer visits them. */
  private apply(reply: ExpandedChunk, level: number, first: number): void {
    const { explorer, frontier, parents, set } = this.search;
    const table = set.table;
    const out = new Int32Array(reply.out, 0, reply.length);
    const chunk = reply.chunk;
    const entry = this.entry;
    const levelStart = parents.levelStarts[level]!;
    let position = 0;
    let at = 0;
    for (let state = 0; state < reply.count && explorer.running; state++) {
      const id = levelStart + first + state;
      const length = chunk[at]!;
      const generated = out[position]!;
      const flags = out[position + 1]!;
      const candidates = out[position + 2]!;
      position += stateHeaderWords;
      explorer.queued = frontier.current + frontier.upcoming;
      if ((flags & expandedBySelf) !== 0) {
        entry.words = chunk;
        entry.start = at + 1;
        entry.end = at + 1 + length;
        entry.id = id;
        explorer.expand(entry, level);
      } else {
        explorer.statesGenerated += generated;
        const parentIndex = parents.parentIndex(id);
        for (let index = 0; index < candidates; index++) {
          const high = out[position]!;
          const low = out[position + 1]!;
          const start = position + candidateHeaderWords;
          const end = start + out[position + 3]!;
          // As Explorer.visit: a fingerprint new to the batch is a candidate of the disk set.
          if (table.add(high, low)) {
            set.add(high, low, parentIndex, out[position + 2]!, out, start, end);
          }
          position = end;
        }
        if (explorer.clock.tick(this.progress)) explorer.stop('time-limit');
      }
      at += 1 + length;
    }
    // A stop ends the chunk early; a chunk applied whole is read to the reply's last word.
    assert(!explorer.running || position === reply.length, 'a reply read to its end');
  }
}
