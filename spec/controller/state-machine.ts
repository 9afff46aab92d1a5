/**
 * The controller's replicated state machine: what every controller replica applies, in log
 * order, for each committed request (MIT 6.5840 shardctrler; Raft dissertation §6.3 for the
 * sessions). The state is the list of numbered configurations plus one session per client.
 *
 * - Join and Leave append exactly one configuration; Move appends one when the shard changes
 *   owner and none when it already belongs to the gid; Query appends none. A refused request
 *   appends none. Earlier configurations are never rewritten (HistoryImmutable): the new list
 *   shares every earlier configuration object with the old one.
 * - Sessions deduplicate by (client, seq): a client has one request outstanding, so only its
 *   latest seq is kept, with the request's canonical text and the first reply. A retry gets
 *   that first reply; the same (client, seq) with another request is an identity conflict; an
 *   older seq is stale. Neither changes anything.
 */
import { match } from 'ts-pattern';
import { assert } from '../assert.js';
import { initialConfig, joinConfig, leaveConfig, moveConfig } from './operations.js';
import { rebalance, type Rebalancer } from './rebalance.js';
import type { Config, ControllerResult, Gid } from './types.js';

export type ControllerCommand =
  | { readonly type: 'join'; readonly groups: Readonly<Record<number, readonly string[]>> }
  | { readonly type: 'leave'; readonly gids: readonly Gid[] }
  | { readonly type: 'move'; readonly shard: number; readonly gid: Gid }
  | { readonly type: 'query'; readonly num: number };

/** One client's command with its session identity. */
export interface ControllerRequest {
  readonly client: string;
  readonly seq: number;
  readonly command: ControllerCommand;
}

/**
 * A reply: for Join, Leave and Move the latest configuration after the request (the new one,
 * or the unchanged latest for a Move to the current owner); for Query the one asked for.
 */
export type ControllerReply = ControllerResult<Config>;

export interface ClientSession {
  readonly seq: number;
  /** The request's canonical text (its digest): a retry must carry the same. */
  readonly request: string;
  readonly reply: ControllerReply;
}

export interface ControllerState {
  /** configs[i].num === i; configs[0] is configuration 0. */
  readonly configs: readonly Config[];
  /** client -> its latest request's session record. */
  readonly sessions: Readonly<Record<string, ClientSession>>;
}

export interface ControllerStep {
  readonly state: ControllerState;
  readonly reply: ControllerReply;
}

export function initialControllerState(shardCount: number): ControllerState {
  return { configs: [initialConfig(shardCount)], sessions: {} };
}

export function latestConfig(state: ControllerState): Config {
  const latest = state.configs[state.configs.length - 1];
  assert(latest !== undefined, 'a controller state holds at least configuration 0');
  return latest;
}

/**
 * The request's canonical text: equal for equal requests whatever the order the caller built
 * them in (group keys iterate in ascending order; leave's gids are sorted).
 */
export function canonicalCommand(command: ControllerCommand): string {
  return match(command)
    .with({ type: 'join' }, ({ groups }) => JSON.stringify(['join', groups]))
    .with({ type: 'leave' }, ({ gids }) =>
      JSON.stringify(['leave', gids.slice().sort((a, b) => a - b)]))
    .with({ type: 'move' }, ({ shard, gid }) => JSON.stringify(['move', shard, gid]))
    .with({ type: 'query' }, ({ num }) => JSON.stringify(['query', num]))
    .exhaustive();
}

/** Query(num): -1 or past the end is the latest; another negative or non-integer is refused. */
export function queryConfig(state: ControllerState, num: number): ControllerReply {
  if (!Number.isSafeInteger(num) || num < -1) return { ok: false, error: `query: bad num ${num}` };
  const latest = num === -1 || num >= state.configs.length;
  const config = latest ? latestConfig(state) : state.configs[num]!;
  return { ok: true, value: config };
}

function appendConfig(
  state: ControllerState,
  result: ControllerResult<Config | null>,
): ControllerStep {
  if (!result.ok) return { state, reply: result };
  if (result.value === null) return { state, reply: { ok: true, value: latestConfig(state) } };
  const config = result.value;
  assert(config.num === latestConfig(state).num + 1, 'a new configuration is numbered latest + 1');
  const configs = [...state.configs, config];
  return { state: { ...state, configs }, reply: { ok: true, value: config } };
}

/**
 * Applies one command, with no session bookkeeping. A switch, not ts-pattern: the checker
 * calls this for every successor and `match` cost a fifth of its time; `never` keeps the
 * switch exhaustive.
 */
export function applyCommand(
  state: ControllerState,
  command: ControllerCommand,
  rebalancer: Rebalancer = rebalance,
): ControllerStep {
  const latest = latestConfig(state);
  switch (command.type) {
    case 'join':
      return appendConfig(state, joinConfig(latest, command.groups, rebalancer));
    case 'leave':
      return appendConfig(state, leaveConfig(latest, command.gids, rebalancer));
    case 'move':
      return appendConfig(state, moveConfig(latest, command.shard, command.gid));
    case 'query':
      return { state, reply: queryConfig(state, command.num) };
    default:
      return unknownCommand(command);
  }
}

function unknownCommand(command: never): never {
  throw new Error(`unknown controller command ${JSON.stringify(command)}`);
}

/** Applies one committed request: deduplicated by (client, seq), then `applyCommand`. */
export function applyRequest(
  state: ControllerState,
  request: ControllerRequest,
  rebalancer: Rebalancer = rebalance,
): ControllerStep {
  const { client, seq } = request;
  assert(Number.isSafeInteger(seq) && seq >= 0, `request seq ${seq} is not a natural number`);
  const text = canonicalCommand(request.command);
  const session = Object.hasOwn(state.sessions, client) ? state.sessions[client] : undefined;
  if (session !== undefined && seq < session.seq) {
    const error = `stale: client ${client} seq ${seq} < ${session.seq}`;
    return { state, reply: { ok: false, error } };
  }
  if (session !== undefined && seq === session.seq) {
    if (session.request === text) return { state, reply: session.reply };
    const error = `identity-conflict: client ${client} seq ${seq} was ${session.request}`;
    return { state, reply: { ok: false, error } };
  }
  const step = applyCommand(state, request.command, rebalancer);
  const sessions = { ...step.state.sessions, [client]: { seq, request: text, reply: step.reply } };
  return { state: { ...step.state, sessions }, reply: step.reply };
}
