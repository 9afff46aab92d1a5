/**
 * A stage of conform (node-stage.ts) on a thread of its own (issue 23 item 4: the per-node
 * reading, parsing and replay are most of conform's time, and they are independent across
 * nodes). The thread posts its steps in batches on a MessagePort; the caller takes them
 * synchronously (receiveMessageOnPort, Atomics.wait), so conform stays one synchronous
 * function whatever runs where. The thread runs at most `batchesAhead` batches ahead of the
 * caller, so memory stays bounded when one stage's records come later in the merge.
 *
 * The shared flags: `signal` counts posts (and the thread's exit) so the caller can sleep
 * until one; `taken` counts batches the caller took; `exited` is set when the thread ends;
 * `stop` asks the thread to end (the caller is done with it).
 */
import {
  receiveMessageOnPort, MessageChannel, type MessagePort, type Worker,
} from 'node:worker_threads';
import { MalformedTraceError } from './divergence.js';
import {
  isFailure, NodeStage, type NodeVerdict, type Stage, type StageItem, type StageOpening,
} from './node-stage.js';
import { StepDecoder, StepEncoder } from './step-codec.js';
import type { TraceSource } from './trace-lines.js';

export const flagSlots = { signal: 0, taken: 1, exited: 2, stop: 3 } as const;
const flagCount = 4;

/** Steps a batch holds; batches a thread may post before the caller takes the first. */
const batchItems = 1024;
const batchesAhead = 16;

/** What a stage thread is started with (the caller adds how to read its nodes' files). */
export interface StageThreadData {
  readonly nodes: readonly string[];
  readonly port: MessagePort;
  readonly flags: SharedArrayBuffer;
}

/** Starts a thread that calls serveStage on `data` (cli/conform-thread.ts). */
export type StartStageThread = (data: StageThreadData) => Worker;

type ThreadMessage =
  | { readonly kind: 'open'; readonly opening: StageOpening }
  /** The items as step-codec.ts writes them. */
  | { readonly kind: 'items'; readonly items: string }
  | { readonly kind: 'end'; readonly verdicts: readonly NodeVerdict[] };

/** A thrown value as it crosses threads: conform rethrows it as the same kind of error. */
interface CrossedError {
  readonly name: string;
  readonly message: string;
}

function crossed(failure: unknown): CrossedError {
  return failure instanceof Error ? { name: failure.name, message: failure.message }
    : { name: 'Error', message: String(failure) };
}

function rebuilt({ name, message }: CrossedError): Error {
  if (name === 'MalformedTraceError') return new MalformedTraceError(message);
  return Object.assign(new Error(message), { name });
}

/** The thread's side: runs the stage of `sources` and posts what it finds. */
export function serveStage(sources: ReadonlyMap<string, TraceSource>,
  data: StageThreadData): void {
  const flags = new Int32Array(data.flags);
  let posted = 0;
  /** False when the caller asked the thread to stop. */
  const post = (message: ThreadMessage): boolean => {
    for (;;) {
      const taken = Atomics.load(flags, flagSlots.taken);
      if (Atomics.load(flags, flagSlots.stop) !== 0) return false;
      if (posted - taken < batchesAhead) break;
      Atomics.wait(flags, flagSlots.taken, taken);
    }
    data.port.postMessage(message);
    posted++;
    Atomics.add(flags, flagSlots.signal, 1);
    Atomics.notify(flags, flagSlots.signal);
    return true;
  };
  const stage = new NodeStage(sources);
  const encoder = new StepEncoder([...sources.keys()]);
  const opening = stage.open();
  if ('failedNode' in opening) {
    post({ kind: 'open', opening: { ...opening, failure: crossed(opening.failure) } });
    return;
  }
  if (!post({ kind: 'open', opening })) return;
  let batch: StageItem[] = [];
  for (let item = stage.next(); item !== undefined; item = stage.next()) {
    if (isFailure(item)) {
      batch.push({ ...item, failure: crossed(item.failure) });
      post({ kind: 'items', items: encoder.encode(batch) });
      return;
    }
    batch.push(item);
    if (batch.length < batchItems) continue;
    if (!post({ kind: 'items', items: encoder.encode(batch) })) return;
    batch = [];
  }
  if (batch.length > 0 && !post({ kind: 'items', items: encoder.encode(batch) })) return;
  post({ kind: 'end', verdicts: stage.verdicts() });
}

/** The caller's side of a stage thread. */
export class ThreadStage implements Stage {
  private readonly flags: Int32Array;
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private readonly decoder: StepDecoder;
  private items: readonly StageItem[] = [];
  private at = 0;
  private ended: readonly NodeVerdict[] | null = null;

  constructor(nodes: readonly string[], start: StartStageThread) {
    const { port1, port2 } = new MessageChannel();
    const flags = new SharedArrayBuffer(flagCount * Int32Array.BYTES_PER_ELEMENT);
    this.flags = new Int32Array(flags);
    this.port = port1;
    this.decoder = new StepDecoder(nodes);
    this.worker = start({ nodes, port: port2, flags });
    // The caller's process may end while a thread it stopped is still winding down.
    this.worker.unref();
  }

  open(): StageOpening {
    const message = this.receive();
    if (message.kind !== 'open') throw new Error(`a conform thread began with ${message.kind}`);
    const opening = message.opening;
    if (!('failedNode' in opening)) return opening;
    return { ...opening, failure: rebuilt(opening.failure as CrossedError) };
  }

  next(): StageItem | undefined {
    while (this.at === this.items.length) {
      if (this.ended !== null) return undefined;
      const message = this.receive();
      if (message.kind === 'end') this.ended = message.verdicts;
      else if (message.kind === 'open') throw new Error('a conform thread opened twice');
      else [this.items, this.at] = [this.decoder.decode(message.items), 0];
    }
    const item = this.items[this.at++]!;
    return isFailure(item) ? { ...item, failure: rebuilt(item.failure as CrossedError) } : item;
  }

  verdicts(): readonly NodeVerdict[] {
    if (this.ended === null) throw new Error('a conform thread\'s verdicts before its end');
    return this.ended;
  }

  close(): void {
    Atomics.store(this.flags, flagSlots.stop, 1);
    Atomics.add(this.flags, flagSlots.taken, 1);
    Atomics.notify(this.flags, flagSlots.taken);
    this.port.close();
    void this.worker.terminate();
  }

  /** The thread's next message, waiting for it. */
  private receive(): ThreadMessage {
    const flags = this.flags;
    for (;;) {
      const signal = Atomics.load(flags, flagSlots.signal);
      const received = receiveMessageOnPort(this.port);
      if (received !== undefined) {
        Atomics.add(flags, flagSlots.taken, 1);
        Atomics.notify(flags, flagSlots.taken);
        return received.message as ThreadMessage;
      }
      if (Atomics.load(flags, flagSlots.exited) !== 0) {
        throw new Error('a conform thread ended before its work was done');
      }
      Atomics.wait(flags, flagSlots.signal, signal);
    }
  }
}
