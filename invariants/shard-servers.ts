/**
 * The invariants about who serves a shard (DESIGN §3), over the groups' shard records:
 *
 * - AtMostOneServer: per shard, at most one group accepts reads and writes. The model reads
 *   its groups' states; the simulator's monitor and conform read each group's latest applied
 *   state (its replica of highest applied index seen so far: a lagging replica cannot make a
 *   group look as if it still served a shard it froze).
 * - StaleRejected: a message of an older migration identity changes nothing, so along a
 *   group's applied states the epoch of the identity it last took part in for a shard never
 *   goes down. It relates two states of one group: the monitor and conform evaluate it on each
 *   group's latest state and the one before. The `migration` model does not (it would need the
 *   state before each step as a history variable); it catches accept-stale-epoch through
 *   NoLostWrite and AtMostOneServer instead.
 */
import type { GroupView } from './shard-view.js';
import { recordText } from './shard-view.js';

/** The body, for one shard: at most one of the groups serves it. */
export function oneServerOf(groups: Iterable<GroupView>, shard: number): boolean {
  let serving = 0;
  for (const group of groups) if (group.shards[shard]!.phase === 'serving') serving++;
  return serving <= 1;
}

export function atMostOneServer(groups: readonly GroupView[]): boolean {
  const shardCount = groups[0]?.shards.length ?? 0;
  for (let shard = 0; shard < shardCount; shard++) {
    if (!oneServerOf(groups, shard)) return false;
  }
  return true;
}

/** "shard 1 is served by gid 1 and gid 2", each group named by `groupName`. */
export function explainAtMostOneServer<Group extends GroupView>(
  groups: readonly Group[],
  groupName: (group: Group) => string = (group) => `gid ${group.gid}`,
): string {
  const shardCount = groups[0]?.shards.length ?? 0;
  for (let shard = 0; shard < shardCount; shard++) {
    const serving = groups.filter((group) => group.shards[shard]!.phase === 'serving');
    if (serving.length < 2) continue;
    return `shard ${shard} is served by ${serving.map(groupName).join(' and ')}`;
  }
  return 'every shard has at most one server';
}

const epochOf = (group: GroupView, shard: number) => group.shards[shard]!.identity?.epoch ?? 0;

/** StaleRejected from `before` to `after`, two applied states of one group (no identity: 0). */
export function staleRejected(before: GroupView, after: GroupView): boolean {
  for (let shard = 0; shard < after.shards.length; shard++) {
    if (epochOf(after, shard) < epochOf(before, shard)) return false;
  }
  return true;
}

/** "group 100 went back for shard 7 from epoch 6 (101 -> 100), serving to ...". */
export function explainStaleRejected(
  before: GroupView,
  after: GroupView,
  groupName = `group ${after.gid}`,
): string {
  for (let shard = 0; shard < after.shards.length; shard++) {
    if (epochOf(after, shard) >= epochOf(before, shard)) continue;
    return `${groupName} went back for shard ${shard} from ` +
      `${recordText(before.shards[shard]!)} to ${recordText(after.shards[shard]!)}`;
  }
  return 'no epoch went down';
}
