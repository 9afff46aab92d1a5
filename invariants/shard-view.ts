/**
 * What the migration invariants read of the replica groups (DESIGN §3, "The migration
 * protocol"): each group's record of each shard, its phase and the migration identity it last
 * took part in. A GroupState is such a view as it is; the simulator's monitor passes each
 * group's latest applied state, conform the records of the replica it merged last.
 */
import type { Identity } from '../spec/controller/types.js';
import type { ShardState } from '../spec/group/types.js';

export type ShardView = Pick<ShardState, 'phase'> & {
  readonly identity: Pick<Identity, 'epoch' | 'src' | 'dst'> | null;
};

export interface GroupView<Shard extends ShardView = ShardView> {
  readonly gid: number;
  /** shards[s] is the group's record of shard s. */
  readonly shards: readonly Shard[];
}

/**
 * The group whose record of `shard` is authoritative now: the serving one with the newest
 * epoch, else the frozen one with the newest epoch (between freeze and install), else none.
 * NoLostWrite reads the shard's data there, in the model and at the end of a simulated run.
 */
export function holderOf<Group extends GroupView>(
  groups: Iterable<Group>,
  shard: number,
): Group | null {
  let best: Group | null = null;
  let bestRank = -1;
  for (const group of groups) {
    const record = group.shards[shard]!;
    if (record.phase === 'absent') continue;
    const rank = (record.phase === 'serving' ? 1 << 20 : 0) + (record.identity?.epoch ?? 0);
    if (rank > bestRank) {
      best = group;
      bestRank = rank;
    }
  }
  return best;
}

/** "epoch 6 (101 -> 100), serving", or "no identity, absent". */
export function recordText(record: ShardView): string {
  const identity = record.identity;
  const move = identity === null ? 'no identity'
    : `epoch ${identity.epoch} (${identity.src} -> ${identity.dst})`;
  return `${move}, ${record.phase}`;
}
