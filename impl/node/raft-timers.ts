/**
 * The timers of one Raft replica, armed and cancelled exactly as the step function's effects
 * say (spec/raft/types.ts Timer; spec/raft/timers.ts says which role runs which): `election`
 * fires one `electionTimeout` input after a randomised timeout drawn from the seeded Random
 * (so a simulation replays), `heartbeat` a `heartbeat` input every heartbeatIntervalMs until
 * cancelled. `sendSoon` delivers a `heartbeat` input at once, one per turn however many
 * steps asked: to every peer, or, when every step asked for some (a read's round), one
 * `heartbeat` input per peer asked.
 */
import type { Input, Timer } from '../../spec/raft/types.js';
import type { LoopContext } from './loop-context.js';

const timerNames: Readonly<Record<Timer, string>> = {
  election: 'raft-election',
  heartbeat: 'raft-heartbeat-periodic',
};
const sendSoonTimer = 'raft-heartbeat-soon';

/** soonPeers when a step asked for every peer. */
const allPeers = null;

export class RaftTimers {
  /** The peers the pending sendSoon goes to (allPeers: every one); undefined: none pending. */
  private soonPeers: number | null | undefined = undefined;

  constructor(
    private readonly context: LoopContext,
    private readonly enqueue: (input: Input<unknown, unknown>) => void,
  ) {}

  /** Starts `timer`, or restarts it from now when it runs. */
  set(timer: Timer): void {
    if (timer === 'election') {
      this.context.timers.setTimer(timerNames.election, this.electionTimeoutMs(), () => {
        this.enqueue({ type: 'electionTimeout' });
      });
      return;
    }
    this.context.timers.setTimer(timerNames.heartbeat, this.context.tuning.heartbeatIntervalMs,
      () => {
        // Periodic: re-armed before the input queues, it runs until an effect cancels it.
        this.set('heartbeat');
        this.enqueue({ type: 'heartbeat' });
      });
  }

  cancel(timer: Timer): void {
    this.context.timers.cancelTimer(timerNames[timer]);
  }

  /**
   * A `heartbeat` input soon: to the peers in the mask `peers` (spec/raft/read-index.ts's
   * readRoundPeers), or to every peer when absent; what several steps of one turn ask adds up.
   */
  sendSoon(peers?: number): void {
    const asked = this.soonPeers;
    this.soonPeers = asked === allPeers || peers === undefined ? allPeers : (asked ?? 0) | peers;
    // Set again each time (it replaces the one pending): a cancelled timer leaves none behind.
    this.context.timers.setTimer(sendSoonTimer, 0, () => {
      const mask = this.soonPeers;
      this.soonPeers = undefined;
      if (mask === allPeers) return this.enqueue({ type: 'heartbeat' });
      for (let peer = 0; mask !== undefined && mask >> peer !== 0; peer++) {
        if ((mask & (1 << peer)) !== 0) this.enqueue({ type: 'heartbeat', peer });
      }
    });
  }

  private electionTimeoutMs(): number {
    const [low, high] = this.context.tuning.electionTimeoutMs;
    return low + this.context.random.nextInt(high - low + 1);
  }
}
