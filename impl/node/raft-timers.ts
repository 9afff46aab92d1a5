/**
 * The timers of one Raft replica, as the step function's `setTimer` effects ask for them:
 * `election` re-arms one randomised timeout (drawn from the seeded Random, so a simulation
 * replays), `heartbeat` delivers a `heartbeat` input at once (one per turn however many steps
 * asked). A leader or (pre)candidate also gets a `heartbeat` input every heartbeatIntervalMs:
 * heartbeats keep followers' timers from firing and resend what a lost message carried.
 */
import type { Input, Role } from '../../spec/raft/types.js';
import type { LoopContext } from './loop-context.js';

const electionTimer = 'raft-election';
const heartbeatSoonTimer = 'raft-heartbeat-soon';
const heartbeatPeriodicTimer = 'raft-heartbeat-periodic';

export class RaftTimers {
  private periodicArmed = false;

  constructor(
    private readonly context: LoopContext,
    private readonly enqueue: (input: Input<unknown, unknown>) => void,
  ) {}

  armElection(): void {
    const [low, high] = this.context.tuning.electionTimeoutMs;
    const delayMs = low + this.context.random.nextInt(high - low + 1);
    this.context.timers.setTimer(electionTimer, delayMs, () => {
      this.enqueue({ type: 'electionTimeout' });
    });
  }

  heartbeatSoon(): void {
    this.context.timers.setTimer(heartbeatSoonTimer, 0, () => {
      this.enqueue({ type: 'heartbeat' });
    });
  }

  /** Keeps the periodic heartbeat running exactly while the node is not a follower. */
  afterStep(role: Role): void {
    if (role === 'follower') {
      if (this.periodicArmed) this.context.timers.cancelTimer(heartbeatPeriodicTimer);
      this.periodicArmed = false;
      return;
    }
    if (this.periodicArmed) return;
    this.periodicArmed = true;
    this.context.timers.setTimer(heartbeatPeriodicTimer, this.context.tuning.heartbeatIntervalMs,
      () => {
        this.periodicArmed = false;
        this.enqueue({ type: 'heartbeat' });
      });
  }
}
