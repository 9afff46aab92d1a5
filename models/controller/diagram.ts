/**
 * The `controller` model's steps as sequence-diagram events (checker/diagram.ts): the
 * administrator's request is an arrow to the controller, and the configuration it records is
 * told to each group whose shards changed ("gains 3, 4"; "loses 1"), so a trace shows who
 * had what after every step instead of one lifeline of notes.
 */
import type { DiagramEvent } from '../../checker/diagram.js';
import type { ControllerModelState } from './model.js';

const admin = 'admin';
const controller = 'controller';

/** The shards each gid holds in a configuration's `shards` (gid 0: unassigned). */
function holdings(shards: readonly number[]): Map<number, number[]> {
  const held = new Map<number, number[]>();
  shards.forEach((gid, shard) => {
    if (gid !== 0) held.set(gid, [...(held.get(gid) ?? []), shard]);
  });
  return held;
}

/** `label`: the action's label (Join(gid 1), Move(shard 2, gid 3), ...). */
export function controllerDiagram(
  before: ControllerModelState, after: ControllerModelState, label: string,
): DiagramEvent[] {
  const events: DiagramEvent[] = [{ kind: 'message', from: admin, to: controller, text: label }];
  events.push({ kind: 'note', over: controller,
    text: `config ${after.latest.num}: ${after.latest.shards.join(' ')}` });
  const old = holdings(before.latest.shards);
  const now = holdings(after.latest.shards);
  const gids = [...new Set([...old.keys(), ...now.keys()])].sort((a, b) => a - b);
  for (const gid of gids) {
    const had = old.get(gid) ?? [];
    const has = now.get(gid) ?? [];
    const gained = has.filter((shard) => !had.includes(shard));
    const lost = had.filter((shard) => !has.includes(shard));
    const parts = [gained.length > 0 ? `gains ${gained.join(', ')}` : '',
      lost.length > 0 ? `loses ${lost.join(', ')}` : ''].filter((part) => part !== '');
    if (parts.length > 0) {
      events.push({ kind: 'message', from: controller, to: `g${gid}`, text: parts.join('; ') });
    }
  }
  return events;
}
