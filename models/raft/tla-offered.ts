/**
 * The actions the raft.tla preset offers the checker in a state: those of staticActions a
 * server's role allows (Restart always, Timeout unless a leader, RequestVote and
 * BecomeLeader as a candidate, ClientRequest, AdvanceCommitIndex and AppendEntries as a
 * leader), then each message's Receive, DuplicateMessage and DropMessage. Each step still
 * checks its own guards; the roles only spare the checker the steps that cannot be enabled:
 * at TLC's bounds, 49 of 77 million calls of `next` returned null (7 % of the run). The
 * offered list keeps staticActions' order, so among paths of one length the least is the
 * same; a path's action indexes count the offered actions.
 */
import type { TlaAction } from './tla-actions.js';
import type { TlaRaft } from './tla-raft.js';
import { candidate, leader, roleOffset, type TlaState } from './tla-state.js';

function allowedByRole(action: TlaAction, role: number): boolean {
  switch (action.type) {
    case 'Timeout':
      return role !== leader;
    case 'RequestVote':
    case 'BecomeLeader':
      return role === candidate;
    case 'ClientRequest':
    case 'AdvanceCommitIndex':
    case 'AppendEntries':
      return role === leader;
    default:
      return true;
  }
}

function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** Action lists by a message's two words. */
type ByMessage = Map<number, Map<number, readonly TlaAction[]>>;

function byMessage(
  map: ByMessage, low: number, high: number, make: () => readonly TlaAction[],
): readonly TlaAction[] {
  return cached(cached(map, low, () => new Map()), high, make);
}

/** The actions of one assignment of roles: without messages, and with one message. */
interface RoleActions {
  readonly fixed: readonly TlaAction[];
  readonly alone: ByMessage;
}

export class TlaOffered {
  /** By the servers' roles, a number in base 3. */
  private readonly byRoles = new Map<number, RoleActions>();
  /** A message's own three actions: one object per message and kind keeps `actions` cheap. */
  private readonly own: ByMessage = new Map();

  constructor(private readonly raft: TlaRaft, private readonly fixed: readonly TlaAction[]) {}

  actions(state: TlaState): readonly TlaAction[] {
    const { messages } = state;
    const roles = this.roleActions(state.servers);
    if (messages.length === 0) return roles.fixed;
    // A bag of one message, every state inside TLC's MaxMsgs = 1: its whole list cached.
    if (messages.length === 3) {
      const low = messages[0]!;
      const high = messages[1]!;
      return byMessage(roles.alone, low, high, () => [
        ...roles.fixed, ...this.ownActions(low, high),
      ]);
    }
    const actions = roles.fixed.slice();
    for (let at = 0; at < messages.length; at += 3) {
      actions.push(...this.ownActions(messages[at]!, messages[at + 1]!));
    }
    return actions;
  }

  private roleActions(servers: readonly number[]): RoleActions {
    const { width, bounds } = this.raft;
    let key = 0;
    for (let i = 0; i < bounds.servers; i++) key = key * 3 + servers[i * width + roleOffset]!;
    return cached(this.byRoles, key, () => ({
      fixed: this.fixed.filter((action) =>
        !('i' in action) || allowedByRole(action, servers[action.i * width + roleOffset]!)),
      alone: new Map(),
    }));
  }

  private ownActions(low: number, high: number): readonly TlaAction[] {
    return byMessage(this.own, low, high, () =>
      (['Receive', 'DuplicateMessage', 'DropMessage'] as const).map((type) => ({
        type, low, high,
      })));
  }
}
