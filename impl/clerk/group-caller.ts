/**
 * Asking "whoever leads the controller group" (the clerk's controller calls; key/value
 * requests to replica groups go through spec/client's step): try the server believed to
 * lead, then spec/client's nextServer (a `wrong-leader` hint, else the next server), and
 * pause after a round in which nobody led (an election is under way). Bounded by a deadline.
 * A silent attempt's successor waits longer (spec/client/attempt-timeout.ts's back-off), so a
 * slow controller is not asked again and again while it still works on the first copy.
 */
import { attemptTimeoutMs, type AttemptTimeouts } from '../../spec/client/attempt-timeout.js';
import { nextServer } from '../../spec/client/leader-search.js';
import type { Clock, Timers } from '../io/clock.js';
import type { Random } from '../io/random.js';
import type { RequestChannel } from '../node/request-channel.js';
import type { ReplyBody, RequestBody } from '../node/wire.js';

export interface CallerSettings {
  readonly attemptTimeouts: AttemptTimeouts;
  readonly retryPauseMs: number;
}

/** What one operation learned along its attempts. */
export interface Attempts {
  /** A request left: from now on the operation may have taken effect. */
  sent: boolean;
}

export class GroupCaller {
  /** The controller server believed to lead, once one answered or was named. */
  private leader: string | null = null;
  private pauses = 0;

  constructor(
    private readonly channel: RequestChannel,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly random: Random,
    private readonly settings: CallerSettings,
  ) {}

  /** Resolves after `delayMs` of the clock's time. */
  pause(delayMs: number): Promise<void> {
    const name = `clerk-pause-${this.pauses++}`;
    return new Promise((resolve) => this.timers.setTimer(name, delayMs, resolve));
  }

  /**
   * One request to `to`, bounded by the attempt timeout (`retry` silent attempts before it)
   * and the deadline; null when silent.
   */
  async send(to: string, body: RequestBody, deadline: number, attempts: Attempts, retry = 0) {
    const remaining = deadline - this.clock.now();
    if (remaining <= 0) return null;
    attempts.sent = true;
    const timeoutMs = attemptTimeoutMs(this.settings.attemptTimeouts, 0, retry,
      this.random.nextFloat());
    return this.channel.request(to, body, Math.min(timeoutMs, remaining));
  }

  /**
   * The first answer other than `wrong-leader` from the controller group `servers`, or null
   * once the deadline passes.
   */
  async ask(
    servers: readonly string[],
    body: RequestBody,
    deadline: number,
    attempts: Attempts,
  ): Promise<ReplyBody | null> {
    if (servers.length === 0) return null;
    let target = this.leader ?? servers[this.random.nextInt(servers.length)]!;
    let tried = 0;
    let silent = 0;
    while (this.clock.now() < deadline) {
      const reply = await this.send(target, body, deadline, attempts, silent);
      tried++;
      if (reply === null) silent++;
      if (reply !== null && reply.type !== 'wrong-leader') {
        this.leader = target;
        return reply;
      }
      const next = nextServer(servers, target,
        reply?.type === 'wrong-leader' ? reply.leader : null);
      this.leader = next;
      target = next;
      // A whole round without a leader: an election is under way; give it time.
      if (tried % servers.length === 0 && reply !== null) {
        const left = deadline - this.clock.now();
        await this.pause(Math.max(0, Math.min(this.settings.retryPauseMs, left)));
      }
    }
    return null;
  }
}
