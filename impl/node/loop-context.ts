/** What the pieces of one server share: its I/O, its peers, and whether it is still alive. */
import type { Random } from '../io/random.js';
import type { Clock, Timers } from '../io/clock.js';
import type { Transport } from '../io/transport.js';
import type { ResolvedTuning } from './tuning.js';
import type { ShellFaults } from './shell-faults.js';

export interface LoopContext {
  readonly name: string;
  /** The replicas of this server's Raft group by Raft id (the layout's order). */
  readonly peers: readonly string[];
  readonly transport: Transport;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly random: Random;
  readonly tuning: ResolvedTuning;
  readonly log: (line: string) => void;
  /** Planted shell faults (all off outside mbt's tests). */
  readonly faults: ShellFaults;
  /** True after crash() or stop(): every callback and continuation checks it and returns. */
  isDead(): boolean;
  /** A step or an effect threw (a bug): the server dies and says why. */
  fatal(error: unknown): void;
}
