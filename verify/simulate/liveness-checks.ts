/**
 * What must hold once faults stop and the cluster has had time to settle (DESIGN §3: "every
 * recorded configuration is eventually published"), read with the library's predicates
 * (invariants/): the controller published its latest configuration (`latestPublished`, the
 * goal of the `migration` model's RecordedConfigsPublished), and every shard that
 * configuration assigns is served by its owner (UnaffectedServed with no move in flight,
 * reported as PublishedServed). A group that froze a shard it owns, on a stale message say,
 * fails the second check even when no write was lost: its clients would wait forever.
 */
import { latestPublished } from '../../invariants/config-history.js';
import { explainUnaffectedServed, unaffectedServed } from '../../invariants/migration-moves.js';
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
  if (!latestPublished(controller)) {
    return {
      invariant: 'Liveness',
      detail: `configuration ${controller.configs.length - 1} is recorded but only ` +
        `${controller.current} is published ${settleTimeMs} ms after the last request` +
        describeIntent(controller, groups),
    };
  }
  // Published and nothing in flight: UnaffectedServed covers every shard.
  const view = { controller, groups: [] };
  const groupOf = (_: unknown, gid: number) => groups.get(gid);
  if (unaffectedServed(view, groupOf)) return null;
  return {
    invariant: 'PublishedServed',
    detail: `${explainUnaffectedServed(view, groupOf)}, ${settleTimeMs} ms after the last request`,
  };
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
