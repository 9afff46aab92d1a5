/**
 * Finding a Raft group's leader from outside (the MIT 6.5840 clerk's loop): after an attempt
 * to `target` that no leader answered, try the server a wrong-leader reply named, else the
 * next server of the group in order. Shared by the client step (key/value requests to a
 * replica group) and by impl/clerk's controller calls.
 */
import { assert } from '../assert.js';

/** The server to try after `target` (`hint`: the leader a wrong-leader reply named). */
export function nextServer(
  servers: readonly string[],
  target: string,
  hint: string | null,
): string {
  assert(servers.length > 0, 'nextServer: a group has servers');
  if (hint !== null && hint !== target && servers.includes(hint)) return hint;
  const next = servers[(servers.indexOf(target) + 1) % servers.length]!;
  assert(servers.includes(next), 'nextServer: the next server is of the group');
  return next;
}
