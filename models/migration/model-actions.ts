/**
 * The `migration` model's actions: one per atomic step of an actor or of the environment.
 *
 * Labels name shards, gids and clients by number: `Freeze(shard 1)`, `Join(gid 2)`,
 * `ClientRequest(client 0)`, as the printed states do (printing.ts).
 *
 * - Admin: Join(g), Leave(g), Move(s, g) record one configuration each (the controller state
 *   machine's operations), within max-reconfigs. The last group may leave, as in the MIT lab:
 *   its shards become unassigned and stay frozen at it until a later configuration assigns
 *   them.
 * - Driver (driver-actions.ts): the spec's stepDriver, fed what the runtime's host feeds it;
 *   PlanNext / Publish (its proposal applies), Freeze(s) / Install(s) / Delete(s) and
 *   Query(s, g) (one of its commands reaches a group; the reply reaches the driver or is lost;
 *   the network may keep a copy to deliver late), CrashDriver (it restarts from `next`).
 * - Clients run spec/client's step (model-clients.ts): ClientRequest(c) sends the attempt
 *   the client's step asked for (the reply may be lost: the attempt times out; a copy may be
 *   kept); the client retries, and asks for the latest recorded configuration (published or
 *   not: CONTRACT's `ctl query`) on ErrWrongGroup or silence, answered in the same step.
 *   ClientQuery(c): a query that found no owner of the shard is answered later, by a newer
 *   configuration. ReuseSeq(c), within max-reuses: the client replaces its outstanding request
 *   by another under the same seq.
 * - Network: Deliver(i) delivers a kept copy late. A client's copy: its reply reaches the
 *   client, whose step takes it only if it answers its outstanding request (the clerk listens
 *   for late replies). A driver command's copy has only its reply-lost form: the runtime's
 *   driver host takes one reply per request, while the request waits, and the request a copy
 *   repeats was answered or timed out when it was first delivered (or died with the crashed
 *   driver's process), so no driver ever takes the copy's reply
 *   (traces/mbt/migration-late-query-after-crash, migration-late-reply-after-timeout).
 * Losing a request is not an action: it is the same as not sending it yet.
 */
import {
  applyOperation,
  type ControllerOperation,
} from '../../spec/controller/state-machine.js';
import type { Gid } from '../../spec/controller/types.js';
import { applyGroupCommand } from '../../spec/group/state-machine.js';
import { unboundedSizes, type SizeLimits } from '../../spec/group/size-policy.js';
import type { GroupCommand, GroupResult } from '../../spec/group/types.js';
import type { MigrationBugName } from '../../spec/migration/bugs.js';
import { key2shard } from '../../spec/group/digest.js';
import { DriverActions, type DriverAction, type DriverSendType } from './driver-actions.js';
import { clientAnswer, recordClientAnswer } from './history.js';
import type {
  ClientState,
  InFlight,
  MigrationBounds,
  MigrationState,
  ModelBugs,
} from './model-state.js';
import { modelBugs, serversOf } from './model-state.js';
import { clientAnswered, clientLearns, clientReusesSeq, pendingSend } from './model-clients.js';

export type MigrationAction =
  | { readonly type: 'Join'; readonly gid: Gid }
  | { readonly type: 'Leave'; readonly gid: Gid }
  | { readonly type: 'Move'; readonly shard: number; readonly gid: Gid }
  | DriverAction
  | {
      readonly type: 'ClientRequest';
      readonly client: number;
      readonly lost: boolean;
      readonly duplicate: boolean;
    }
  | { readonly type: 'ClientQuery'; readonly client: number }
  | { readonly type: 'Deliver'; readonly index: number; readonly lost: boolean }
  | { readonly type: 'ExpireSessions'; readonly gid: Gid }
  | { readonly type: 'ReuseSeq'; readonly client: number };

const flags = [false, true] as const;

/** Every action, in a fixed order (a disabled one simply has no successor). */
export function allActions(bounds: MigrationBounds): MigrationAction[] {
  const actions: MigrationAction[] = [];
  for (let gid = 1; gid <= bounds.groups; gid++) actions.push({ type: 'Join', gid });
  for (let gid = 1; gid <= bounds.groups; gid++) actions.push({ type: 'Leave', gid });
  for (let shard = 0; shard < bounds.shards; shard++) {
    for (let gid = 1; gid <= bounds.groups; gid++) actions.push({ type: 'Move', shard, gid });
  }
  actions.push({ type: 'PlanNext' });
  const types: DriverSendType[] = ['Freeze', 'Install', 'Delete'];
  for (let shard = 0; shard < bounds.shards; shard++) {
    for (const type of types) {
      for (const lost of flags) {
        for (const duplicate of flags) actions.push({ type, shard, lost, duplicate });
      }
    }
    for (let gid = 1; gid <= bounds.groups; gid++) {
      for (const duplicate of flags) actions.push({ type: 'Query', shard, gid, duplicate });
    }
  }
  actions.push({ type: 'Publish' }, { type: 'CrashDriver' });
  for (let client = 0; client < bounds.clients; client++) {
    for (const lost of flags) {
      for (const duplicate of flags) {
        actions.push({ type: 'ClientRequest', client, lost, duplicate });
      }
    }
    actions.push({ type: 'ClientQuery', client });
  }
  for (let index = 0; index < bounds.maxDuplicates; index++) {
    for (const lost of flags) actions.push({ type: 'Deliver', index, lost });
  }
  // Last, so that the indexes of the other actions do not depend on this bound.
  for (let gid = 1; bounds.maxExpiries > 0 && gid <= bounds.groups; gid++) {
    actions.push({ type: 'ExpireSessions', gid });
  }
  for (let client = 0; bounds.maxReuses > 0 && client < bounds.clients; client++) {
    actions.push({ type: 'ReuseSeq', client });
  }
  return actions;
}

/** Labels name shards, gids and clients by their numbers, as the printed states do. */
export function actionLabel(action: MigrationAction): string {
  const extras = (fault: { readonly lost: boolean; readonly duplicate?: boolean }) =>
    (fault.lost ? ', reply-lost' : '') + (fault.duplicate ? ', duplicated' : '');
  switch (action.type) {
    case 'Join':
    case 'Leave':
    case 'ExpireSessions':
      return `${action.type}(gid ${action.gid})`;
    case 'Move':
      return `Move(shard ${action.shard}, gid ${action.gid})`;
    case 'Freeze':
    case 'Install':
    case 'Delete':
      return `${action.type}(shard ${action.shard}${extras(action)})`;
    case 'Query':
      return `Query(shard ${action.shard}, gid ${action.gid}${extras({ lost: false, ...action })})`;
    case 'ClientRequest':
      return `ClientRequest(client ${action.client}${extras(action)})`;
    case 'ClientQuery':
    case 'ReuseSeq':
      return `${action.type}(client ${action.client})`;
    case 'Deliver':
      return `Deliver(network[${action.index}]${extras(action)})`;
    default:
      return action.type;
  }
}

export class MigrationStepper {
  private readonly bugs: ModelBugs;
  private readonly driver: DriverActions;
  /** The groups' size policy: values unbounded, images cut by the part-bytes bound. */
  private readonly sizes: SizeLimits;

  constructor(
    private readonly bounds: MigrationBounds,
    bug: MigrationBugName | undefined,
  ) {
    this.bugs = modelBugs(bug);
    this.sizes = { ...unboundedSizes, imagePartBytes: bounds.partBytes };
    this.driver = new DriverActions(bounds, this.bugs, {
      deliver: (state, to, command) => this.deliver(state, to, command),
      keep: (state, copy) =>
        state.duplicates >= bounds.maxDuplicates ? null : withCopy(state, copy),
    });
  }

  next(state: MigrationState, action: MigrationAction): MigrationState | null {
    switch (action.type) {
      case 'Join':
        return this.recordConfig(state, {
          type: 'join',
          groups: { [action.gid]: serversOf(action.gid) },
        });
      case 'Leave':
        return this.recordConfig(state, { type: 'leave', gids: [action.gid] });
      case 'Move':
        return this.recordConfig(state, { type: 'move', shard: action.shard, gid: action.gid });
      case 'PlanNext':
      case 'Freeze':
      case 'Install':
      case 'Delete':
      case 'Query':
      case 'Publish':
      case 'CrashDriver':
        return this.driver.next(state, action);
      case 'ClientRequest':
        return this.clientRequest(state, action.client, action.lost, action.duplicate);
      case 'ClientQuery': {
        const latest = state.controller.configs.at(-1)!;
        const client = clientLearns(this.bounds, action.client, state.clients[action.client]!,
          latest);
        return client && withClient(state, action.client, client);
      }
      case 'ReuseSeq':
        return this.reuseSeq(state, action.client);
      case 'ExpireSessions':
        return this.expireSessions(state, action.gid);
      case 'Deliver': {
        const copy = state.network[action.index];
        if (copy === undefined) return null;
        // No driver waits for the reply to a late copy of its command (above).
        if (!action.lost && copy.command.type !== 'client') return null;
        const network = state.network.filter((_, index) => index !== action.index);
        const delivered = this.deliver({ ...state, network }, copy.to, copy.command);
        if (action.lost) return delivered.state;
        return this.replyToSender(delivered.state, copy.to, copy.command, delivered.result);
      }
    }
  }

  /** An admin operation: enabled when it records a configuration, within max-reconfigs. */
  private recordConfig(
    state: MigrationState,
    operation: ControllerOperation,
  ): MigrationState | null {
    const configs = state.controller.configs;
    if (configs.length - 2 >= this.bounds.maxReconfigs) return null;
    const applied = applyOperation(state.controller, operation, this.bugs.controller).state;
    return applied.configs.length === configs.length ? null : { ...state, controller: applied };
  }

  /**
   * Group `gid`'s log expires the session of its oldest live client (Raft dissertation
   * §6.3: the decision is a log entry, so every replica makes it at the same point).
   */
  private expireSessions(state: MigrationState, gid: Gid): MigrationState | null {
    const floor = state.groups[gid - 1]!.sessionFloor;
    if (state.expiries >= this.bounds.maxExpiries || floor >= this.bounds.clients) return null;
    const expired = this.deliver(state, gid, { type: 'expire-sessions', below: floor + 1 });
    return { ...expired.state, expiries: state.expiries + 1 };
  }

  /** A client replaces its outstanding request by another under the same seq (once). */
  private reuseSeq(state: MigrationState, clientIndex: number): MigrationState | null {
    const reusing = state.clients.filter((candidate) => candidate.reusedSeq >= 0).length;
    if (reusing >= this.bounds.maxReuses) return null;
    const client = clientReusesSeq(this.bounds, clientIndex, state.clients[clientIndex]!);
    return client && withClient(state, clientIndex, client);
  }

  /** Client `clientIndex` sends the attempt its step asked for (model-clients.ts). */
  private clientRequest(
    state: MigrationState,
    clientIndex: number,
    lost: boolean,
    duplicate: boolean,
  ): MigrationState | null {
    const send = pendingSend(state.clients[clientIndex]!);
    if (send === null) return null;
    const command: GroupCommand = { type: 'client', request: send.request };
    let current = state;
    if (duplicate) {
      if (state.duplicates >= this.bounds.maxDuplicates) return null;
      current = withCopy(current, { to: send.gid, command });
    }
    const delivered = this.deliver(current, send.gid, command);
    if (lost) return clientReply(this.bounds, delivered.state, send.gid, command, null);
    return this.replyToSender(delivered.state, send.gid, command, delivered.result);
  }

  /**
   * A reply from group `to` reaches whoever sent the command: the driver (its step function
   * decides what the reply is worth); a client's step takes it if it answers its outstanding
   * request.
   */
  private replyToSender(
    state: MigrationState,
    to: Gid,
    command: GroupCommand,
    result: GroupResult,
  ): MigrationState {
    if (command.type === 'client') return clientReply(this.bounds, state, to, command, result);
    return this.driver.reply(state, to, command, result);
  }

  /** Group `to` applies `command`; the history variables note what it changed. */
  private deliver(
    state: MigrationState,
    to: Gid,
    command: GroupCommand,
  ): { state: MigrationState; result: GroupResult } {
    const group = state.groups[to - 1]!;
    const applied = applyGroupCommand(group, command, this.bugs.migration, this.sizes);
    let history = state.history;
    if (command.type === 'client') {
      const record = group.shards[key2shard(command.request.key, this.bounds.shards)]!;
      const answer = clientAnswer(record, command.request, applied.result);
      if (answer !== null) history = recordClientAnswer(history, this.bounds, answer);
    }
    if (applied.state === group && history === state.history) {
      return { state, result: applied.result };
    }
    const groups = state.groups.slice();
    groups[to - 1] = applied.state;
    return { state: { ...state, groups, history }, result: applied.result };
  }
}

/** A client's request to `to` was answered (`result` null: the reply was lost). */
function clientReply(
  bounds: MigrationBounds,
  state: MigrationState,
  to: Gid,
  command: Extract<GroupCommand, { type: 'client' }>,
  result: GroupResult | null,
): MigrationState {
  const index = command.request.client;
  const latest = state.controller.configs.at(-1)!;
  const client = clientAnswered(bounds, state.clients[index]!, command.request, to, result,
    latest);
  return client === state.clients[index] ? state : withClient(state, index, client);
}

function withClient(state: MigrationState, index: number, client: ClientState): MigrationState {
  const clients = state.clients.slice();
  clients[index] = client;
  return { ...state, clients };
}

/** The state with one more kept copy, in canonical order. */
function withCopy(state: MigrationState, copy: InFlight): MigrationState {
  const network = [...state.network, copy];
  network.sort((a, b) => compareText(JSON.stringify(a), JSON.stringify(b)));
  return { ...state, network, duplicates: state.duplicates + 1 };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
