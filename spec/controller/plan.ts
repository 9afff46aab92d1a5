/**
 * Planning a configuration change (DESIGN §3): the identities of the shards that move from
 * configuration `from` to configuration `to`. The controller computes them when it applies
 * the driver's `plan` command, so every controller replica records the same intent.
 *
 * A shard's src is the group that holds its data. That is its owner in `from`, unless `from`
 * left it unassigned (every group left): then its data stayed, frozen, at its last owner
 * (CONTRACT), found by walking the history back. A shard no group ever held has src 0 and
 * starts empty. dst 0 unassigns the shard: src freezes it and keeps it.
 */
import { assert } from '../assert.js';
import { unassignedGid, type Config, type Gid, type Identity } from './types.js';

/** The last owner of `shard` in configurations 0..`upTo`, or 0 when there was none. */
export function lastHolder(configs: readonly Config[], upTo: number, shard: number): Gid {
  assert(upTo < configs.length, `lastHolder: no configuration ${upTo}`);
  for (let num = upTo; num >= 0; num--) {
    const owner = configs[num]!.shards[shard]!;
    if (owner !== unassignedGid) return owner;
  }
  return unassignedGid;
}

/** One identity per shard whose owner changes from configuration `from` to `to`, by shard. */
export function planMoves(configs: readonly Config[], from: number, to: number): Identity[] {
  assert(from >= 0 && from < to && to < configs.length, `planMoves: bad change ${from} -> ${to}`);
  const before = configs[from]!.shards;
  const after = configs[to]!.shards;
  assert(before.length === after.length, 'planMoves: shard counts differ');
  const moves: Identity[] = [];
  for (let shard = 0; shard < after.length; shard++) {
    if (before[shard] === after[shard]) continue;
    const src = lastHolder(configs, from, shard);
    moves.push({ shard, epoch: to, src, dst: after[shard]! });
  }
  return moves;
}
