/**
 * Which timer runs in which role, as etcd's becomeX choose tickElection or tickHeartbeat
 * (Raft paper §5.2, dissertation §9.6): a follower waits for its leader (`election`); a
 * (pre)candidate retries its election (`election`) and asks again for the votes it misses
 * (`heartbeat`); a leader replicates and keeps followers' timers from firing (`heartbeat`)
 * and, with CheckQuorum only, checks its lease at every election timeout (`election`). The
 * runtime only arms and cancels what these effects say (types.ts Timer and Effect).
 */
import { assert } from '../assert.js';
import type { Effect, RaftOptions, RaftNode, Role, Timer } from './types.js';

const timers: readonly Timer[] = ['election', 'heartbeat'];

/** Whether a node of `role` runs `timer`. */
export function runsTimer(role: Role, timer: Timer, options: RaftOptions): boolean {
  switch (role) {
    case 'follower':
      return timer === 'election';
    case 'precandidate':
    case 'candidate':
      return true;
    case 'leader':
      return timer === 'heartbeat' || options.checkQuorum === true;
  }
}

/** The timers a restarted node (a follower, in a new process where none runs) sets. */
export function restartTimerEffects<C, S>(options: RaftOptions): Effect<C, S>[] {
  return timers
    .filter((timer) => runsTimer('follower', timer, options))
    .map((timer) => ({ type: 'setTimer', timer }));
}

/**
 * The set and cancel effects that take the running timers from `before`'s role to `after`'s;
 * none when the role stays. A timer the step's `effects` already set is not set again.
 */
export function roleTimerEffects<C, S>(
  before: RaftNode<C, S>,
  after: RaftNode<C, S>,
  effects: readonly Effect<C, S>[],
  options: RaftOptions,
): Effect<C, S>[] {
  if (before.role === after.role) return [];
  const changes: Effect<C, S>[] = [];
  for (const timer of timers) {
    const running = runsTimer(before.role, timer, options);
    const wanted = runsTimer(after.role, timer, options);
    if (running && !wanted) changes.push({ type: 'cancelTimer', timer });
    if (running || !wanted) continue;
    const set = effects.some((effect) => effect.type === 'setTimer' && effect.timer === timer);
    if (!set) changes.push({ type: 'setTimer', timer });
  }
  assert(changes.length <= timers.length, 'at most one change per timer');
  return changes;
}
