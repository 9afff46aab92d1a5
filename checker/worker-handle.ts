/**
 * The checker's worker threads (parallel-bfs.ts, disk-parallel.ts, search-thread.ts): how one
 * is started, and a handle that pairs each request with the worker's next reply.
 */
import { ok as assert } from 'node:assert';
import { Worker, type TransferListItem } from 'node:worker_threads';
import { ModelError } from './model-guard.js';

/**
 * Starts a worker on the checker module `name` (its file name without extension, beside
 * `callerUrl`): the compiled .js, or, when running from TypeScript sources (tests under tsx),
 * the .ts source through tsx's loader, which a worker does not inherit.
 */
export function startWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) {
    return new Worker(new URL(`./${name}.js`, callerUrl), { workerData });
  }
  // Evaluated code resolves 'tsx' from the working directory: tests run from the repository.
  const target = new URL(`./${name}.ts`, callerUrl).href;
  const bootstrap =
    `import('tsx/esm/api').then((api) => { api.register(); ` +
    `return import(${JSON.stringify(target)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** A worker's error, as fields: a thrown ModelError is rethrown as one by the parent. */
export interface FailedReply {
  readonly type: 'failed';
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

/** The reply a worker posts for an error it caught. */
export function failedReply(error: unknown): FailedReply {
  return error instanceof Error
    ? { type: 'failed', name: error.name, message: error.message, stack: error.stack ?? '' }
    : { type: 'failed', name: 'Error', message: String(error), stack: '' };
}

export class WorkerHandle<Request, Reply extends { readonly type: string }> {
  private waiting: ((message: Reply | FailedReply) => void)[] = [];
  private failure: Error | undefined;

  constructor(readonly worker: Worker) {
    worker.on('message', (message: Reply) => this.waiting.shift()?.(message));
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const resolve of this.waiting.splice(0)) resolve(failedReply(error));
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`worker exited with code ${code}`)));
  }

  /** The worker's next message (its first is 'ready'). */
  next(): Promise<Reply | FailedReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Reply | FailedReply>((resolve) => this.waiting.push(resolve));
  }

  /** Sends a message (moving `transfer`'s buffers) and waits for the worker's next reply. */
  request(
    message: Request,
    transfer: readonly TransferListItem[] = [],
  ): Promise<Reply | FailedReply> {
    const reply = this.next();
    this.worker.postMessage(message, transfer);
    return reply;
  }
}

/**
 * Checks a worker's reply. A worker's ModelError is the user's model failing (invalid input,
 * exit 2): rethrown as it is, it reads as on one thread. It names the state that threw first
 * on that worker: when several states of a level throw, one thread may name another.
 */
export function expectReply<Reply extends { readonly type: string }>(
  message: Reply | FailedReply,
  type: Reply['type'],
): asserts message is Reply {
  if (message.type === 'failed') {
    const failed = message as FailedReply;
    if (failed.name === ModelError.name) throw new ModelError(failed.message);
    throw new Error(`worker failed: ${failed.stack || failed.message}`);
  }
  assert(message.type === type, `expected ${type} from a worker, got ${message.type}`);
}
