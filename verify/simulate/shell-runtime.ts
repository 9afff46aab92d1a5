/**
 * The simulator's Runtime bound to the node shell (impl/node createServer) and the clerk
 * (impl/clerk Clerk). A clerk call gets a deadline of `operationTimeoutMs` of simulated time;
 * what it cannot finish by then is unknown (or refused when no request ever left).
 */
import { Clerk } from '../../impl/clerk/clerk.js';
import { createServer } from '../../impl/node/server.js';
import type { AdminClerk } from './administrator.js';
import type { ClerkEnvironment, Runtime } from './runtime.js';
import type { KeyValueClerk } from './workload.js';

/** Simulated time a client or the administrator waits for one operation. */
export const operationTimeoutMs = 5_000;

function clerkOf(environment: ClerkEnvironment): Clerk {
  const { transport, timers, clock, random, layout } = environment;
  return new Clerk({ transport, timers, clock, random, layout });
}

export const shellRuntime: Runtime = {
  createServer,
  createClerk(environment: ClerkEnvironment): KeyValueClerk {
    const clerk = clerkOf(environment);
    const deadline = () => environment.clock.now() + operationTimeoutMs;
    return {
      get: (key) => clerk.get(key, deadline()),
      put: (key, value) => clerk.put(key, value, deadline()),
      append: (key, value) => clerk.append(key, value, deadline()),
    };
  },
  createAdminClerk(environment: ClerkEnvironment): AdminClerk {
    const clerk = clerkOf(environment);
    const { layout } = environment;
    const deadline = () => environment.clock.now() + operationTimeoutMs;
    return {
      join: (gids) => clerk.join(
        Object.fromEntries(gids.map((gid) => [gid, layout.groups[gid]!])), deadline()),
      leave: (gids) => clerk.leave(gids, deadline()),
      move: (shard, gid) => clerk.move(shard, gid, deadline()),
      query: (num) => clerk.query(num, deadline()),
      expireSessions: (gid, below) =>
        clerk.expireSessions(layout.groups[gid]!, below, deadline()),
    };
  },
};
