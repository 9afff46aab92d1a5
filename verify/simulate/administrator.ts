/**
 * The administrator of a simulated run: through its own clerk it joins the groups, then
 * keeps reconfiguring at seeded intervals: it joins a group that is out, makes a group
 * leave (never the last one, so that clients keep being served), or moves a shard, mostly
 * one that holds the clients' keys, so data moves and moves back while clients use it.
 * It waits for each request's outcome; a refused or unknown one leaves its belief of the
 * membership as it was (a later request may then be refused, which changes nothing).
 * In the seeds that draw session expiry (swarm.ts) it also expires client sessions: each
 * time two more (the session floor rises by two), through every group's log in turn, as
 * an operator reclaims the dedup records of clients that went away.
 */
import type { Random } from '../../impl/io/random.js';
import type { Config } from '../../spec/controller/types.js';
import type { Outcome, PublishedConfig } from '../../impl/node/api.js';
import type { VirtualClock } from '../../impl/sim/virtual-clock.js';
import type { EventLog } from './event-log.js';

/** What the simulator asks of an administrator's clerk (impl/clerk). */
export interface AdminClerk {
  join(gids: readonly number[]): Promise<Outcome<unknown>>;
  leave(gids: readonly number[]): Promise<Outcome<unknown>>;
  move(shard: number, gid: number): Promise<Outcome<unknown>>;
  /** Configuration `num` (-1: the latest), as `ctl query` answers (progress and answers). */
  query(num: number): Promise<Outcome<PublishedConfig>>;
  /** Group `gid` expires the sessions below `below` (its log's expire-sessions command). */
  expireSessions(gid: number, below: number): Promise<Outcome<unknown>>;
}

export interface AdministratorSetup {
  readonly clock: VirtualClock;
  readonly log: EventLog;
  readonly gids: readonly number[];
  /** The shards that hold the clients' keys. */
  readonly busyShards: readonly number[];
  readonly shardCount: number;
  readonly stopping: () => boolean;
  /** Each configuration an ok request answered, by number, as first told (answer checks). */
  readonly told?: Map<number, Config>;
  /** This seed's administrator also expires sessions (swarm.ts). */
  readonly sessionExpiry: boolean;
}

export interface AdministratorStatistics {
  requests: number;
  ok: number;
  refused: number;
  unknown: number;
}

/** Reconfigurations come every [min, max] milliseconds. */
export const reconfigureIntervalMs: readonly [number, number] = [50, 600];
/** With session expiry, one request in this many raises the floor... */
export const expiryOneIn = 3;
/** ...by this many sessions... */
export const expirySessionsPerStep = 2;
/** ...at most this many times a run, so that some clients keep their sessions. */
export const expiriesMax = 3;

type Request =
  | { readonly type: 'join' | 'leave'; readonly gids: readonly number[] }
  | { readonly type: 'move'; readonly shard: number; readonly gid: number }
  | { readonly type: 'expire'; readonly gid: number; readonly below: number };

/** Runs until the active phase is over, counting its requests into `statistics` as it goes. */
export async function runAdministrator(
  setup: AdministratorSetup,
  clerk: AdminClerk,
  random: Random,
  statistics: AdministratorStatistics,
): Promise<void> {
  const members = new Set<number>();
  const first: Request[] = random.nextInt(2) === 0
    ? [{ type: 'join', gids: setup.gids }]
    : setup.gids.map((gid) => ({ type: 'join', gids: [gid] }));
  for (const request of first) await perform(setup, clerk, request, members, statistics);
  let floor = 0;
  let expiries = 0;
  while (!setup.stopping()) {
    const [min, max] = reconfigureIntervalMs;
    await setup.clock.sleep(min + random.nextInt(max - min + 1));
    if (setup.stopping()) break;
    // The draw happens only in expiry seeds, so that the other seeds run as before.
    if (setup.sessionExpiry && expiries < expiriesMax && random.nextInt(expiryOneIn) === 0) {
      expiries++;
      floor += expirySessionsPerStep;
      for (const gid of setup.gids) {
        await perform(setup, clerk, { type: 'expire', gid, below: floor }, members, statistics);
      }
      continue;
    }
    await perform(setup, clerk, chooseRequest(setup, members, random), members, statistics);
  }
}

function chooseRequest(
  setup: AdministratorSetup,
  members: ReadonlySet<number>,
  random: Random,
): Request {
  const outside = setup.gids.filter((gid) => !members.has(gid));
  const inside = setup.gids.filter((gid) => members.has(gid));
  const choice = random.nextInt(10);
  if (outside.length > 0 && (choice < 2 || inside.length === 0)) {
    return { type: 'join', gids: [outside[random.nextInt(outside.length)]!] };
  }
  if (inside.length > 1 && choice < 4) {
    return { type: 'leave', gids: [inside[random.nextInt(inside.length)]!] };
  }
  const shard = random.nextInt(5) < 4
    ? setup.busyShards[random.nextInt(setup.busyShards.length)]!
    : random.nextInt(setup.shardCount);
  return { type: 'move', shard, gid: inside[random.nextInt(inside.length)]! };
}

async function perform(
  setup: AdministratorSetup,
  clerk: AdminClerk,
  request: Request,
  members: Set<number>,
  statistics: AdministratorStatistics,
): Promise<void> {
  const { clock, log } = setup;
  const text = request.type === 'move' ? `move ${request.shard} ${request.gid}`
    : request.type === 'expire' ? `expire-sessions below ${request.below} at ${request.gid}`
    : `${request.type} ${request.gids.join(' ')}`;
  log.add(clock.now(), 'admin', `call ${text}`);
  statistics.requests++;
  const outcome = await send(clerk, request);
  statistics[outcome.status === 'ok' ? 'ok' : outcome.status]++;
  log.add(clock.now(), 'admin', `${outcome.status} ${text}` +
    (outcome.status === 'ok' ? '' : `: ${outcome.error}`));
  if (outcome.status === 'ok' && request.type !== 'expire') {
    const config = outcome.value as Config;
    if (!setup.told?.has(config.num)) setup.told?.set(config.num, config);
  }
  if (outcome.status !== 'ok' || request.type === 'move' || request.type === 'expire') return;
  for (const gid of request.gids) {
    if (request.type === 'join') members.add(gid);
    else members.delete(gid);
  }
}

function send(clerk: AdminClerk, request: Request): Promise<Outcome<unknown>> {
  switch (request.type) {
    case 'join':
      return clerk.join(request.gids);
    case 'leave':
      return clerk.leave(request.gids);
    case 'move':
      return clerk.move(request.shard, request.gid);
    case 'expire':
      return clerk.expireSessions(request.gid, request.below);
  }
}
