/**
 * What must hold once faults stop and the cluster has had time to settle (DESIGN §3: "every
 * recorded configuration is eventually published"): the controller published its latest
 * configuration, and every shard that configuration assigns is served by its owner. A group
 * that froze a shard it owns, on a stale message say, fails the second check even when no
 * write was lost: its clients would wait forever.
 */
import type { ControllerState } from '../../../spec/controller/state-machine.js';
import { unassignedGid } from '../../../spec/controller/types.js';
import type { GroupState } from '../../../spec/group/types.js';
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
        `published ${settleTimeMs} ms after the last request`,
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
