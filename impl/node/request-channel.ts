/**
 * Outbound requests over a Transport, matched to their replies by id: what a clerk sends to
 * servers and what a controller leader's migration driver sends to groups. A request either
 * gets its reply or, after its timeout, null (lost, slow, or its target is down: the caller
 * cannot tell which, so it treats the outcome as unknown and retries).
 */
import type { Timers } from '../io/clock.js';
import type { Transport } from '../io/transport.js';
import { encodeFrame, type ReplyBody, type RequestBody, type Stamp } from './wire.js';

export class RequestChannel {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: ReplyBody | null) => void>();
  private closed = false;

  /** `timerPrefix` keeps this channel's timer names apart from its owner's others. */
  constructor(
    private readonly transport: Transport,
    private readonly timers: Timers,
    private readonly timerPrefix: string,
    /** A traced node stamps its requests (impl/trace). */
    private readonly stamp?: () => Stamp,
  ) {}

  /** Sends `body` to `to`; resolves with the reply, or null after `timeoutMs`. */
  request(to: string, body: RequestBody, timeoutMs: number): Promise<ReplyBody | null> {
    if (this.closed) return Promise.resolve(null);
    const id = this.nextId++;
    const timer = `${this.timerPrefix}${id}`;
    const answered = new Promise<ReplyBody | null>((resolve) => {
      this.waiting.set(id, (reply) => {
        this.waiting.delete(id);
        this.timers.cancelTimer(timer);
        resolve(reply);
      });
    });
    this.timers.setTimer(timer, Math.max(0, timeoutMs), () => this.waiting.get(id)?.(null));
    const stamp = this.stamp?.();
    this.transport.send(to, encodeFrame(stamp === undefined
      ? { kind: 'request', id, body } : { kind: 'request', id, body, stamp }));
    return answered;
  }

  /** A reply frame arrived: resolves its request (a late or duplicate reply is ignored). */
  handleReply(id: number, body: ReplyBody): void {
    this.waiting.get(id)?.(body);
  }

  /** Every request in flight resolves with null; later requests resolve with null at once. */
  close(): void {
    this.closed = true;
    for (const resolve of [...this.waiting.values()]) resolve(null);
  }

  /** Process death: nothing resolves any more (the owner ignores everything after a crash). */
  abandon(): void {
    this.closed = true;
    this.waiting.clear();
  }
}
