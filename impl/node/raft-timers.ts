/**
 * The timers of one Raft replica, armed and cancelled exactly as the step function's effects
 * say (spec/raft/types.ts Timer; spec/raft/timers.ts says which role runs which). Each runs
 * until cancelled: `election` fires an `electionTimeout` input after a randomised timeout
 * drawn anew each time from the seeded Random (so a simulation replays), `heartbeat` a
 * `heartbeat` input every heartbeatIntervalMs. `sendSoon` delivers a `heartbeat` input at
 * once, one per turn however many steps asked.
 */
import type { Input, Timer } from '../../spec/raft/types.js';
import type { LoopContext } from './loop-context.js';

const timerNames: Readonly<Record<Timer, string>> = {
  election: 'raft-election',
  heartbeat: 'raft-heartbeat-periodic',
};
const sendSoonTimer = 'raft-heartbeat-soon';

export class RaftTimers {
  constructor(
    private readonly context: LoopContext,
    private readonly enqueue: (input: Input<unknown, unknown>) => void,
  ) {}

  /** Starts `timer`, or restarts it from now when it runs. */
  set(timer: Timer): void {
    const delayMs = timer === 'election' ? this.electionTimeoutMs()
      : this.context.tuning.heartbeatIntervalMs;
    this.context.timers.setTimer(timerNames[timer], delayMs, () => {
      // Re-armed before the input queues: it keeps running until an effect cancels it.
      this.set(timer);
      this.enqueue(timer === 'election' ? { type: 'electionTimeout' } : { type: 'heartbeat' });
    });
  }

  cancel(timer: Timer): void {
    this.context.timers.cancelTimer(timerNames[timer]);
  }

  sendSoon(): void {
    this.context.timers.setTimer(sendSoonTimer, 0, () => {
      this.enqueue({ type: 'heartbeat' });
    });
  }

  private electionTimeoutMs(): number {
    const [low, high] = this.context.tuning.electionTimeoutMs;
    return low + this.context.random.nextInt(high - low + 1);
  }
}
