/**
 * One key/value operation's attempts, kept open until the operation ends (issue 27): a large
 * get's reply can take longer than several attempt timeouts, and each new attempt made the
 * leader serialise the value again, so the get was never answered. A reply that arrives after
 * its attempt timed out is still handed to the client step, which decides (its handleReply
 * takes a reply of any attempt of the same (client, seq)); so a slow reply wins.
 */
import type { ClientEffect } from '../../spec/client/types.js';
import type { RequestChannel } from '../node/request-channel.js';
import type { ReplyBody } from '../node/wire.js';

export type SendEffect = Extract<ClientEffect, { type: 'send' }>;

/** A reply and the attempt it answers. */
export interface AttemptReply {
  readonly effect: SendEffect;
  readonly reply: ReplyBody;
}

export class OpenAttempts {
  private readonly ids: number[] = [];
  /** Late replies not handed to the step yet. */
  private readonly arrived: AttemptReply[] = [];
  private wake: (() => void) | null = null;
  private closed = false;

  constructor(private readonly channel: RequestChannel) {}

  /**
   * The step's attempt `effect`: its reply within `timeoutMs`, or the late reply of an
   * earlier attempt if one comes first, or null. A late reply that came while no attempt was
   * in flight (the step was asking for a configuration) answers at once: nothing is sent.
   */
  async attempt(effect: SendEffect, timeoutMs: number): Promise<AttemptReply | null> {
    const waiting = this.arrived.shift();
    if (waiting !== undefined) return waiting;
    const body = { type: 'kv', request: effect.request } as const;
    const sent = this.channel.requestKeepingLate(effect.server, body, timeoutMs,
      (reply) => this.lateReply(effect, reply));
    if (sent === null) return null;
    this.ids.push(sent.id);
    const late = new Promise<'late'>((resolve) => {
      this.wake = () => resolve('late');
    });
    const first = await Promise.race([sent.answer, late]);
    this.wake = null;
    if (first !== 'late') return first === null ? null : { effect, reply: first };
    // This attempt is an earlier one now: its answer, if it comes in time, is late too.
    void sent.answer.then((reply) => {
      if (reply !== null) this.lateReply(effect, reply);
    });
    return this.arrived.shift() ?? null;
  }

  /** The operation ended: later replies to its attempts are ignored. */
  close(): void {
    this.closed = true;
    for (const id of this.ids) this.channel.forgetLate(id);
  }

  private lateReply(effect: SendEffect, reply: ReplyBody): void {
    // Only an answer counts: a late wrong-leader tells nothing the attempts since have not.
    if (this.closed || (reply.type !== 'group-result' && reply.type !== 'refused')) return;
    this.arrived.push({ effect, reply });
    this.wake?.();
  }
}
