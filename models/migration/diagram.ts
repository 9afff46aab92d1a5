/**
 * The `migration` model's steps as sequence-diagram events (checker/diagram.ts), one
 * participant per actor: the admin's Join / Leave / Move go to the controller; the driver
 * learns the next configuration from it and publishes there; its freeze / install / delete /
 * query requests are arrows to the group they reach (the group whose state the step
 * changed, or the one the action names); a client's request goes to its group, and a late
 * copy from the network to the group it is for. Notes carry what has no receiver.
 */
import type { DiagramEvent } from '../../checker/diagram.js';
import type { MigrationAction } from './model-actions.js';
import type { MigrationState } from './model-state.js';

const admin = 'admin';
const controller = 'controller';
const driver = 'driver';
const network = 'network';
const group = (gid: number) => `g${gid}`;
const client = (index: number) => `client ${index}`;

/** The gids whose group state differs between the two states. */
function changedGroups(before: MigrationState, after: MigrationState): number[] {
  return after.groups.filter((state, index) =>
    JSON.stringify(state) !== JSON.stringify(before.groups[index])).map((state) => state.gid);
}

/** Arrows from `from` to each group the step changed; a note over `from` if none. */
function toChangedGroups(
  before: MigrationState, after: MigrationState, from: string, text: string,
): DiagramEvent[] {
  const gids = changedGroups(before, after);
  if (gids.length === 0) return [{ kind: 'note', over: from, text: `${text} (no group changed)` }];
  return gids.map((gid) => ({ kind: 'message', from, to: group(gid), text }));
}

export function migrationDiagram(
  before: MigrationState, action: MigrationAction, after: MigrationState, label: string,
): DiagramEvent[] {
  switch (action.type) {
    case 'Join':
    case 'Leave':
    case 'Move':
      return [{ kind: 'message', from: admin, to: controller, text: label }];
    case 'PlanNext':
      return [{ kind: 'message', from: controller, to: driver,
        text: `next config ${after.driver.num ?? '-'}` }];
    case 'Publish':
      return [{ kind: 'message', from: driver, to: controller,
        text: `publish config ${before.driver.num ?? '-'}` }];
    case 'CrashDriver':
      return [{ kind: 'note', over: driver, text: 'crash: beliefs lost' }];
    case 'Query':
      return [{ kind: 'message', from: driver, to: group(action.gid), text: label }];
    case 'Freeze':
    case 'Install':
    case 'Delete':
      return toChangedGroups(before, after, driver, label);
    case 'ClientRequest':
      return toChangedGroups(before, after, client(action.client), label);
    case 'ClientQuery':
      return [{ kind: 'message', from: controller, to: client(action.client), text: 'config' }];
    case 'ReuseSeq':
      return [{ kind: 'note', over: client(action.client), text: label }];
    case 'ExpireSessions':
      return [{ kind: 'note', over: group(action.gid), text: label }];
    case 'Deliver': {
      const copy = before.network[action.index];
      if (copy === undefined) return [{ kind: 'note', over: network, text: label }];
      return [{ kind: 'message', from: network, to: group(copy.to),
        text: `late ${copy.command.type}${action.lost ? ', reply lost' : ''}` }];
    }
  }
}
