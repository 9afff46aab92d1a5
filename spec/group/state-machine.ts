/**
 * The replica group's apply function: one committed command in, the new state and the
 * command's result out. Pure and deterministic, so every replica of a Raft group that applies
 * the same log reaches the same state and answers the same results; the runtime calls it from
 * its apply loop and the `migration` model calls it as one atomic step.
 */
import { match } from 'ts-pattern';
import { applyClientRequest, expireSessions } from './client-requests.js';
import {
  deleteShard,
  freezeShard,
  installShard,
  queryShard,
  unfreezeShard,
} from './migration-steps.js';
import type { Applied, GroupCommand, GroupOptions, GroupState } from './types.js';

export function applyCommand(
  group: GroupState,
  command: GroupCommand,
  options: GroupOptions = {},
): Applied {
  return match(command)
    .with({ type: 'client' }, ({ request }) => applyClientRequest(group, request, options))
    .with({ type: 'freeze' }, ({ identity }) => freezeShard(group, identity, options))
    .with({ type: 'install' }, ({ identity, image }) =>
      installShard(group, identity, image, options))
    .with({ type: 'delete' }, ({ identity, receipt }) =>
      deleteShard(group, identity, receipt, options))
    .with({ type: 'unfreeze' }, ({ identity }) => unfreezeShard(group, identity, options))
    .with({ type: 'query-shard' }, ({ shard }) => queryShard(group, shard))
    .with({ type: 'expire-sessions' }, ({ below }) => expireSessions(group, below))
    .exhaustive();
}

/** The shards the group serves, ascending (what `cluster status` reports). */
export function servedShards(group: GroupState): number[] {
  const served: number[] = [];
  group.shards.forEach((record, shard) => {
    if (record.phase === 'serving') served.push(shard);
  });
  return served;
}
