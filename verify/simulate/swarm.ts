/**
 * Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012; TigerBeetle's VOPR draws its
 * cluster options per seed the same way): each seed switches some features off, so a bug
 * that one feature hides (PreVote and CheckQuorum make Figure 8 and a double vote after a
 * restart rare) is met by the seeds that run without it, and some seeds turn on what the
 * others never do (the administrator expiring client sessions through the groups' logs).
 * The draws come from a stream of their own, split from the seed after every other one, so
 * a seed whose draws are all the defaults runs exactly as it did before swarm existed.
 */
import type { Random } from '../../impl/io/random.js';

export interface SwarmDraws {
  /** Servers run PreVote (dissertation §9.6). */
  readonly preVote: boolean;
  /** Servers run CheckQuorum and its leader lease (§9.6). */
  readonly checkQuorum: boolean;
  /** The administrator expires client sessions through the groups' logs. */
  readonly sessionExpiry: boolean;
}

/** Each feature is on in this many quarters of the seeds. */
export const swarmQuartersOn = { preVote: 2, checkQuorum: 2, sessionExpiry: 1 } as const;

export function drawSwarm(random: Random): SwarmDraws {
  const on = (quarters: number) => random.nextInt(4) < quarters;
  return {
    preVote: on(swarmQuartersOn.preVote),
    checkQuorum: on(swarmQuartersOn.checkQuorum),
    sessionExpiry: on(swarmQuartersOn.sessionExpiry),
  };
}

/** For the run's first event line: `prevote on, checkquorum off, session expiry off`. */
export function describeSwarm(draws: SwarmDraws): string {
  const word = (on: boolean) => (on ? 'on' : 'off');
  return `prevote ${word(draws.preVote)}, checkquorum ${word(draws.checkQuorum)}, ` +
    `session expiry ${word(draws.sessionExpiry)}`;
}
