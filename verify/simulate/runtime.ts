/**
 * What the simulator needs of the runtime: the node shell's server factory and the clerks.
 * The simulator depends on this interface only; shell-runtime.ts binds it to impl/node and
 * impl/clerk, and a test can bind it to anything that speaks the same contract.
 */
import type { Clock, Timers } from '../../impl/io/clock.js';
import type { Random } from '../../impl/io/random.js';
import type { Transport } from '../../impl/io/transport.js';
import type { ClusterLayout, ServerTuning } from '../../impl/node/api.js';
import type { AdminClerk } from './administrator.js';
import type { ServerFactory } from './cluster.js';
import type { KeyValueClerk } from './workload.js';

/** The I/O of one client process. */
export interface ClerkEnvironment {
  readonly name: string;
  readonly layout: ClusterLayout;
  readonly transport: Transport;
  readonly clock: Clock & { sleep(delayMs: number): Promise<void> };
  readonly timers: Timers;
  readonly random: Random;
}

export interface Runtime {
  readonly createServer: ServerFactory;
  createClerk(environment: ClerkEnvironment): KeyValueClerk;
  createAdminClerk(environment: ClerkEnvironment): AdminClerk;
  /** The servers' tuning in the simulation (defaults: the shell's). */
  readonly tuning?: Partial<ServerTuning>;
}
