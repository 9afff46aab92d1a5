/**
 * How the `migration` model's states read in traces, ITF files and replay messages, in the
 * numbering the labels use (CONTRACT): shards by their number 0..S-1, groups by their gid
 * (`groups[2]` is gid 2, never a position), clients by their session id 0..C-1. Ordered maps
 * (a shard's KV and dedup table) print as maps, the driver's progress by shard, and the
 * history's per-request arrays per client (`history.applied[1][0]`: client 1's request 0).
 *
 * Printing only: the checker stores, fingerprints and explores the states as they are.
 */
import type { MigrationBounds, MigrationState } from './model-state.js';

/** A flat array indexed `client * ops + seq`, as one sequence per client. */
function perClient<T>(values: readonly T[], ops: number): T[][] {
  const clients: T[][] = [];
  for (let start = 0; start < values.length; start += ops) {
    clients.push(values.slice(start, start + ops));
  }
  return clients;
}

/**
 * The driver's progress, keyed by the shard each entry moves when the driver works on the
 * controller's intent (its entries follow the intent's moves); else as the driver holds it.
 */
function printedProgress(state: MigrationState) {
  const { driver, controller } = state;
  const next = controller.next;
  if (next === null || driver.num !== next.num || driver.progress.length !== next.moves.length) {
    return driver;
  }
  const byShard = new Map(next.moves.map((move, index) => [move.shard, driver.progress[index]!]));
  return { num: driver.num, progress: byShard };
}

/** The state as traces print it (the model's `variables` hook). */
export function migrationVariables(
  bounds: MigrationBounds,
  state: MigrationState,
): Record<string, unknown> {
  const { history } = state;
  const ops = Math.max(bounds.ops, 1);
  return {
    ...state,
    driver: printedProgress(state),
    // A client's cached configuration by its number (the controller holds them all), its
    // settings left out (the model's, in every state).
    clients: state.clients.map(({ actor: { settings: _settings, config, ...actor }, ...client }) =>
      ({ ...client, actor: { ...actor, config: config?.num ?? null } })),
    groups: new Map(state.groups.map(({ gid, ...group }) => [gid, group])),
    history: {
      ...history,
      applied: perClient(history.applied, ops),
      first: perClient(history.first, ops),
      firstReused: perClient(history.firstReused, ops),
    },
  };
}
