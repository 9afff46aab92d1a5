/**
 * The timers of one Raft replica, armed and cancelled exactly as the step function's effects
 * say (spec/raft/types.ts Timer; spec/raft/timers.ts says which role runs which): `election`
 * fires one `electionTimeout` input after a randomised timeout drawn from the seeded Random
 * (so a simulation replays), `heartbeat` a `heartbeat` input every heartbeatIntervalMs until
 * cancelled. `sendSoon` delivers a `heartbeat` input at once, one per turn however many
 * steps asked.
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
