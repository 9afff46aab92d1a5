/**
 * Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012; TigerBeetle's VOPR draws its
 * cluster options per seed the same way): each seed switches some features off, so a bug
 * that one feature hides (PreVote and CheckQuorum make Figure 8 and a double vote after a
 * restart rare) is met by the seeds that run without it, and some seeds turn on what the
 * others never do (the administrator expiring client sessions through the groups' logs;
 * leader churn, below). The draws come from a stream of their own, split from the seed after
 * every other one, so a seed whose draws are all the defaults runs exactly as it did before
 * swarm existed.
 */
import type { Random } from '../../impl/io/random.js';

export interface SwarmDraws {
  /** Servers run PreVote (dissertation §9.6). */
  readonly preVote: boolean;
  /** Servers run CheckQuorum and its leader lease (§9.6). */
  readonly checkQuorum: boolean;
  /** The administrator expires client sessions through the groups' logs. */
  readonly sessionExpiry: boolean;
  /**
   * Leader churn: elections that collide, leaders that alternate and voters that come back
   * at once. The nemesis also cuts bridges (two servers of a Raft group that cannot reach
   * each other, both reaching the third, as Jepsen's bridge) and restarts a crashed server
   * within `quickDownTimeMs`; the servers time out within `churnElectionTimeoutMs` (split
   * votes: two candidates of one term) and replicate one entry per AppendEntries (a new
   * leader's earlier-term entries reach a follower before its no-op). This is what shows
   * Figure 8 (commit-prev-term) and a vote given twice in one term (forget-vote-on-restart);
   * the features are drawn together because each bug needs all of them at once.
   */
  readonly leaderChurn: boolean;
}

/** Each feature is on in this many quarters of the seeds. */
export const swarmQuartersOn = {
  preVote: 2, checkQuorum: 2, sessionExpiry: 1, leaderChurn: 1,
} as const;

/** With leader churn: the election timeout range (the default is [300, 600]). */
export const churnElectionTimeoutMs: readonly [number, number] = [300, 330];
/** With leader churn: how soon a crashed server restarts (the default is 20 to 1,500 ms). */
export const quickDownTimeMs: readonly [number, number] = [20, 120];

export function drawSwarm(random: Random): SwarmDraws {
  const on = (quarters: number) => random.nextInt(4) < quarters;
  return {
    preVote: on(swarmQuartersOn.preVote),
    checkQuorum: on(swarmQuartersOn.checkQuorum),
    sessionExpiry: on(swarmQuartersOn.sessionExpiry),
    // Drawn last, so that the draws above are what they were before it existed.
    leaderChurn: on(swarmQuartersOn.leaderChurn),
  };
}

/**
 * The servers' tuning a seed's draws ask for, over the runtime's defaults (impl/node/tuning.ts,
 * flow control included: the simulator runs what the cluster runs).
 */
export function swarmTuning(draws: SwarmDraws) {
  const { preVote, checkQuorum } = draws;
  if (!draws.leaderChurn) return { preVote, checkQuorum };
  return {
    preVote, checkQuorum, electionTimeoutMs: churnElectionTimeoutMs, maxEntriesPerAppend: 1,
  };
}

/**
 * For the run's first event line: `prevote on, checkquorum off, session expiry off`, then
 * `, leader churn` when on (a seed without it keeps the line, and so the digest, it had).
 */
export function describeSwarm(draws: SwarmDraws): string {
  const word = (on: boolean) => (on ? 'on' : 'off');
  return `prevote ${word(draws.preVote)}, checkquorum ${word(draws.checkQuorum)}, ` +
    `session expiry ${word(draws.sessionExpiry)}` + (draws.leaderChurn ? ', leader churn' : '');
}
