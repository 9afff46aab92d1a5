/**
 * What must hold once faults stop and the cluster has had time to settle (DESIGN §3: "every
 * recorded configuration is eventually published"): the controller published its latest
 * configuration, and every shard that configuration assigns is served by its owner. A group
 * that froze a shard it owns, on a stale message say, fails the second check even when no
 * write was lost: its clients would wait forever.
 */
import type { ControllerState } from '../../spec/controller/state-machine.js';
import { unassignedGid } from '../../spec/controller/types.js';
import type { GroupState } from '../../spec/group/types.js';
import type { Violation } from './safety-monitor.js';

export function checkSettled(
  controller: ControllerState | null,
  groups: ReadonlyMap<number, GroupState>,
  settleTimeMs: number,
): Violation | null {
  if (controller === null) return { invariant: 'Liveness', detail: 'no controller is up' };
  const recorded = controller.configs.length - 1;
  if (controller.current < recorded) {
    return {
      invariant: 'Liveness',
      detail: `configuration ${recorded} is recorded but only ${controller.current} is ` +
        `published ${settleTimeMs} ms after the last request` + describeIntent(controller, groups),
    };
  }
  const config = controller.configs[controller.current]!;
  for (let shard = 0; shard < config.shards.length; shard++) {
    const owner = config.shards[shard]!;
    if (owner === unassignedGid) continue;
    const phase = groups.get(owner)?.shards[shard]?.phase ?? 'absent';
    if (phase !== 'serving') {
      return {
        invariant: 'PublishedServed',
        detail: `configuration ${config.num} is published and assigns shard ${shard} to ` +
          `group ${owner}, which holds it ${phase} ${settleTimeMs} ms after the last request`,
      };
    }
  }
  return null;
}

/** The moves of the intent in flight, with what src and dst hold of each shard. */
function describeIntent(
  controller: ControllerState,
  groups: ReadonlyMap<number, GroupState>,
): string {
  const next = controller.next;
  if (next === null) return '; no move is in flight';
  const phase = (gid: number, shard: number) =>
    gid === unassignedGid ? 'none' : groups.get(gid)?.shards[shard]?.phase ?? 'unknown';
  const moves = next.moves.map(({ shard, src, dst }) =>
    `shard ${shard} ${src} -> ${dst} (src ${phase(src, shard)}, dst ${phase(dst, shard)})`);
  return `; in flight to ${next.num}: ${moves.join(', ')}`;
}
