/**
 * What a simulated run must get done once its faults are repaired (issue 26; Jepsen's and
 * etcd's robustness tests require availability after the faults heal, TigerBeetle's VOPR a
 * core that makes progress after its swarm phase). The safety checks pass on a cluster that
 * does nothing, so these require that it does its job, each within a named bound of simulated
 * time counted from the nemesis's repair (docs/progress-checks.md):
 *
 * - LeaderAfterHeal: every Raft group, the controllers' included, has a leader of its highest
 *   term within leaderAfterHealMs.
 * - AdminProgress: the administrator's request after the repair (a Move that changes an owner,
 *   or a Join) is answered ok, recorded by the controller and published within
 *   adminPublishMs.
 * - ClientProgress: each client's next operation after the repair (an append of a token of
 *   its own) completes within clientProbeMs (the clerk's deadline), and its token is then in
 *   the key's value exactly once.
 * - OperationsComplete: with `--faults none`, at least completedShareNoFaults of the active
 *   phase's operations completed (nothing but migrations can delay them).
 */
import { memberGids } from '../../spec/controller/operations.js';
import type { Config } from '../../spec/controller/types.js';
import type { PublishedConfig, ServerView, Outcome } from '../../impl/node/api.js';
import type { VirtualClock } from '../../impl/sim/virtual-clock.js';
import type { HistoryRecorder } from './history.js';
import type { Violation } from './safety-monitor.js';
import type { KeyValueClerk } from './workload.js';

export const progressBounds = {
  /** Ten of the longest election timeouts (600 ms): many split votes, not a stall. */
  leaderAfterHealMs: 6_000,
  /** The clerk's own deadline (shell-runtime operationTimeoutMs). */
  clientProbeMs: 5_000,
  /** A request, its migration and the publication, on a healthy cluster. */
  adminPublishMs: 10_000,
  /** With no faults, the share of operations that must complete. */
  completedShareNoFaults: 0.95,
} as const;

/** The name the monitors and the checks give a Raft group. */
export function raftGroupOf(view: ServerView): string {
  return view.kind === 'controller' ? 'controller' : `g${view.gid}`;
}

/**
 * When each Raft group first had, after the repair, a leader of its highest term (the highest
 * any of its live servers is in: a deposed leader that has not heard yet does not count).
 */
export class LeaderWatch {
  private readonly ledAt = new Map<string, number>();

  constructor(private readonly groups: readonly string[]) {}

  observe(views: readonly ServerView[], nowMs: number): void {
    const highest = new Map<string, number>();
    for (const view of views) {
      const group = raftGroupOf(view);
      highest.set(group, Math.max(highest.get(group) ?? 0, view.raft.currentTerm));
    }
    for (const view of views) {
      const group = raftGroupOf(view);
      if (this.ledAt.has(group) || view.raft.role !== 'leader') continue;
      if (view.raft.currentTerm === highest.get(group)) this.ledAt.set(group, nowMs);
    }
  }

  allLed(): boolean {
    return this.groups.every((group) => this.ledAt.has(group));
  }

  check(healedAtMs: number): Violation | null {
    const bound = progressBounds.leaderAfterHealMs;
    for (const group of this.groups) {
      const at = this.ledAt.get(group);
      if (at !== undefined && at - healedAtMs <= bound) continue;
      return {
        invariant: 'LeaderAfterHeal',
        detail: `${group === 'controller' ? 'the controller group' : `group ${group}`} ` +
          (at === undefined ? 'has no leader' : `had no leader until ${at - healedAtMs} ms`) +
          ` ${bound} ms after the faults were repaired`,
      };
    }
    return null;
  }
}

/** What the progress probes ask of the administrator's clerk. */
export interface ProbeAdminClerk {
  join(gids: readonly number[]): Promise<Outcome<unknown>>;
  move(shard: number, gid: number): Promise<Outcome<unknown>>;
  query(num: number): Promise<Outcome<PublishedConfig>>;
}

export type ProbeRequest =
  | { readonly type: 'move'; readonly shard: number; readonly gid: number }
  | { readonly type: 'join'; readonly gid: number };

/**
 * A request that must make a new configuration from `latest`: move the first busy shard to
 * another member (data moves), or join a group when only one is a member.
 */
export function probeRequest(
  latest: Config,
  gids: readonly number[],
  busyShards: readonly number[],
): ProbeRequest {
  const members = memberGids(latest);
  const shard = busyShards[0]!;
  const other = members.find((gid) => gid !== latest.shards[shard]);
  if (other !== undefined) return { type: 'move', shard, gid: other };
  const outside = gids.find((gid) => !members.includes(gid));
  if (outside !== undefined) return { type: 'join', gid: outside };
  return { type: 'move', shard, gid: members[0]! };
}

const adminFailure = (detail: string): Violation => ({ invariant: 'AdminProgress', detail });

/**
 * AdminProgress: the probe request is answered ok with a new configuration, and the
 * controller publishes it, all within adminPublishMs.
 */
export async function probeAdministrator(
  clerk: ProbeAdminClerk,
  clock: VirtualClock,
  gids: readonly number[],
  busyShards: readonly number[],
  told: Map<number, Config>,
): Promise<Violation | null> {
  const bound = progressBounds.adminPublishMs;
  const start = clock.now();
  const latest = await clerk.query(-1);
  if (latest.status !== 'ok') return adminFailure(`query -1 was ${latest.status}: ${latest.error}`);
  const request = probeRequest(latest.value.config, gids, busyShards);
  const text = request.type === 'move' ? `move ${request.shard} ${request.gid}`
    : `join ${request.gid}`;
  const outcome = request.type === 'move' ? await clerk.move(request.shard, request.gid)
    : await clerk.join([request.gid]);
  if (outcome.status !== 'ok') return adminFailure(`${text} was ${outcome.status}: ${outcome.error}`);
  const made = (outcome.value as Config).num;
  if (!told.has(made)) told.set(made, outcome.value as Config);
  if (made <= latest.value.config.num) {
    return adminFailure(`${text} made no configuration after ${latest.value.config.num}`);
  }
  while (clock.now() - start <= bound) {
    const asked = await clerk.query(made);
    if (asked.status === 'ok' && asked.value.config.num === made && asked.value.published) {
      return null;
    }
    await clock.sleep(50);
  }
  return adminFailure(`configuration ${made} (${text}) not published ${bound} ms after the ` +
    'request');
}

/** OperationsComplete: with no faults, most operations completed. */
export function checkOperationsComplete(ok: number, unknown: number): Violation | null {
  const share = progressBounds.completedShareNoFaults;
  const total = ok + unknown;
  if (total > 0 && ok >= share * total) return null;
  return {
    invariant: 'OperationsComplete',
    detail: `with no faults only ${ok} of ${total} operations completed (at least ` +
      `${Math.round(share * 100)}% must)`,
  };
}

/** The token client `index` appends after the repair (no active-phase token looks like it). */
export function probeToken(index: number): string {
  return `<c${index}.probe>`;
}

/**
 * Refusals that are the group's definite answer and write nothing: the size policy's
 * (`simulate --value-bytes`) and an expired session's (the swarm's session expiry).
 */
const definiteRefusals: readonly string[] = ['value-too-large', 'session-expired'];

/**
 * ClientProgress, first half: every client appends its probe token, all at once, each of
 * which must be answered ok (the clerk gives up at clientProbeMs), or refused definitely (its
 * key is full, or its session expired): that too is the group's answer. The appends join the
 * history; `checkProbeTokens` reads the values once they are done. The clients refused are
 * added to `refused`.
 */
export async function probeClients(
  clerks: readonly KeyValueClerk[],
  keys: readonly string[],
  history: HistoryRecorder,
  clientName: (index: number) => string,
  refused: Set<number>,
): Promise<Violation | null> {
  const outcomes = await Promise.all(clerks.map(async (clerk, index) => {
    const key = keys[index % keys.length]!;
    const operation = history.call(clientName(index), 'append', key, probeToken(index));
    const outcome = await clerk.append(key, probeToken(index));
    if (outcome.status === 'ok') history.returned(operation);
    else history.unknown(operation);
    if (outcome.status === 'refused' && definiteRefusals.includes(outcome.error)) {
      refused.add(index);
    }
    return { index, key, outcome };
  }));
  const failed = outcomes.find(({ index, outcome }) =>
    outcome.status !== 'ok' && !refused.has(index));
  if (failed === undefined) return null;
  const { index, key, outcome } = failed;
  const error = outcome.status === 'ok' ? '' : `: ${outcome.error}`;
  return {
    invariant: 'ClientProgress',
    detail: `${clientName(index)}'s append to ${JSON.stringify(key)} after the repair was ` +
      `${outcome.status} within ${progressBounds.clientProbeMs} ms${error}`,
  };
}

/**
 * ClientProgress, second half: each acknowledged probe token is in its key's value exactly
 * once, and one refused is not in it at all.
 */
export function checkProbeTokens(
  clients: number,
  keys: readonly string[],
  values: ReadonlyMap<string, string>,
  refused: ReadonlySet<number> = new Set(),
): Violation | null {
  for (let index = 0; index < clients; index++) {
    const key = keys[index % keys.length]!;
    const value = values.get(key) ?? '';
    const count = value.split(probeToken(index)).length - 1;
    const wasRefused = refused.has(index);
    if (count === (wasRefused ? 0 : 1)) continue;
    return {
      invariant: 'ClientProgress',
      detail: `key ${JSON.stringify(key)} holds the ${wasRefused ? 'refused' : 'acknowledged'} ` +
        `probe ${probeToken(index)} ${count} times`,
    };
  }
  return null;
}
