/**
 * Outbound requests over a Transport, matched to their replies by id: what a clerk sends to
 * servers and what a controller leader's migration driver sends to groups. A request either
 * gets its reply or, after its timeout, null (lost, slow, or its target is down: the caller
 * cannot tell which, so it treats the outcome as unknown and retries). A request sent with
 * `requestKeepingLate` stays open after its timeout: its reply still goes to a listener until
 * the owner forgets it (a clerk's earlier attempts of one operation, issue 27).
 */
import type { Timers } from '../io/clock.js';
import type { Transport } from '../io/transport.js';
import { encodeFrame, type ReplyBody, type RequestBody, type Stamp } from './wire.js';

/**
 * The first request id of a channel made at `nowMs` (ms since the epoch, or of a simulation):
 * ids go on from there, so those of an earlier incarnation of the same node (a restarted
 * controller) lie below, unless it sent a thousand requests a millisecond, and a late reply to
 * one of them cannot be taken for the answer to a new request: replies are matched by id.
 */
export function firstRequestId(nowMs: number): number {
  return Math.floor(nowMs) * 1000 + 1;
}

export class RequestChannel {
  private nextId: number;
  private readonly waiting = new Map<number, (reply: ReplyBody | null) => void>();
  /** Listeners of replies that arrive after their request's timeout, by request id. */
  private readonly late = new Map<number, (reply: ReplyBody) => void>();
  private closed = false;

  /** `timerPrefix` keeps this channel's timer names apart from its owner's others. */
  constructor(
    private readonly transport: Transport,
    private readonly timers: Timers,
    private readonly timerPrefix: string,
    firstId: number,
    /** A traced node stamps its requests (impl/trace). */
    private readonly stamp?: () => Stamp,
  ) {
    this.nextId = firstId;
  }

  /** Sends `body` to `to`; resolves with the reply, or null after `timeoutMs`. */
  request(to: string, body: RequestBody, timeoutMs: number): Promise<ReplyBody | null> {
    return this.send(to, body, timeoutMs)?.answer ?? Promise.resolve(null);
  }

  /**
   * As `request`, and a reply that arrives after the timeout goes to `onLate`, until
   * `forgetLate(id)` (null: the channel is closed, nothing was sent).
   */
  requestKeepingLate(
    to: string,
    body: RequestBody,
    timeoutMs: number,
    onLate: (reply: ReplyBody) => void,
  ): { readonly id: number; readonly answer: Promise<ReplyBody | null> } | null {
    const sent = this.send(to, body, timeoutMs);
    if (sent !== null) this.late.set(sent.id, onLate);
    return sent;
  }

  /** A late reply to request `id` is ignored from now on. */
  forgetLate(id: number): void {
    this.late.delete(id);
  }

  private send(to: string, body: RequestBody, timeoutMs: number) {
    if (this.closed) return null;
    const id = this.nextId++;
    const timer = `${this.timerPrefix}${id}`;
    const answer = new Promise<ReplyBody | null>((resolve) => {
      this.waiting.set(id, (reply) => {
        this.waiting.delete(id);
        this.timers.cancelTimer(timer);
        // Answered in time: there is no late reply to wait for.
        if (reply !== null) this.late.delete(id);
        resolve(reply);
      });
    });
    this.timers.setTimer(timer, Math.max(0, timeoutMs), () => this.waiting.get(id)?.(null));
    const stamp = this.stamp?.();
    this.transport.send(to, encodeFrame(stamp === undefined
      ? { kind: 'request', id, body } : { kind: 'request', id, body, stamp }));
    return { id, answer };
  }

  /**
   * A reply frame arrived: resolves its request, or goes to its late listener once (any
   * other late or duplicate reply is ignored).
   */
  handleReply(id: number, body: ReplyBody): void {
    const waiter = this.waiting.get(id);
    if (waiter !== undefined) return waiter(body);
    const onLate = this.late.get(id);
    this.late.delete(id);
    onLate?.(body);
  }

  /** Every request in flight resolves with null; later requests resolve with null at once. */
  close(): void {
    this.closed = true;
    this.late.clear();
    for (const resolve of [...this.waiting.values()]) resolve(null);
  }

  /** Process death: nothing resolves any more (the owner ignores everything after a crash). */
  abandon(): void {
    this.closed = true;
    this.waiting.clear();
    this.late.clear();
  }
}
