/**
 * The controller's replicated state machine: what every controller replica applies, in log
 * order (MIT 6.5840 shardctrler; Raft dissertation §6.3 for the sessions; DESIGN §3 for the
 * intent). The state is the list of numbered configurations, one session per client, the
 * published configuration `current` and the migration driver's intent `next`.
 *
 * - Join and Leave append exactly one configuration; Move appends one when the shard changes
 *   owner and none when it already belongs to the gid; Query appends none. A refused request
 *   appends none. Earlier configurations are never rewritten (HistoryImmutable): the new list
 *   shares every earlier configuration object with the old one.
 * - Sessions deduplicate clients' requests by (client, seq): a client has one request
 *   outstanding, so only its latest seq is kept, with the request's canonical text and the
 *   first result. A retry gets that first result; the same (client, seq) with another request
 *   is an identity conflict; an older seq is stale. Neither changes anything.
 * - RegisterClient issues a session id for a key/value client (Raft dissertation §6.3): the
 *   next number, so ids rise in log order and a group's session floor (one number) tells
 *   expired sessions apart. The controller issues them, not a group, because a dedup record
 *   travels with its shard from group to group: the id must mean one client everywhere.
 * - The driver's `plan` records the intent for current -> current + 1 (planMoves) before any
 *   migration step, so a new controller leader's driver resumes it; a repeat returns the same
 *   intent. Its `publish` makes configuration `next.num` current and clears the intent. The
 *   driver proposes publish only once every moved shard is done: that knowledge is the
 *   groups', not the controller's.
 */
import { castDraft, freeze, produce } from 'immer';
import { assert } from '../assert.js';
import { noControllerBugs, type ControllerBugs } from './bugs.js';
import { initialConfig, joinConfig, leaveConfig, moveConfig } from './operations.js';
import { planMoves } from './plan.js';
import type { Config, ControllerResult, Gid, Intent } from './types.js';

/** What a client asks of the controller. */
export type ControllerOperation =
  | { readonly type: 'join'; readonly groups: Readonly<Record<number, readonly string[]>> }
  | { readonly type: 'leave'; readonly gids: readonly Gid[] }
  | { readonly type: 'move'; readonly shard: number; readonly gid: Gid }
  | { readonly type: 'query'; readonly num: number };

/** A client's operation with its session identity. */
export type ClientCommand = ControllerOperation & {
  readonly client: string;
  readonly seq: number;
};

/** Every command the controller's log holds. */
export type ControllerCommand =
  | ClientCommand
  /** A key/value client asks for its session id. */
  | { readonly type: 'register-client' }
  /** The driver: record the intent for configuration `num` (= current + 1). */
  | { readonly type: 'plan'; readonly num: number }
  /** The driver: every move of `next` (numbered `num`) is done; publish it. */
  | { readonly type: 'publish'; readonly num: number };

export type ControllerCommandResult =
  /** Join, Leave, Move: the latest configuration after it; Query: the one asked for. */
  | { readonly type: 'config'; readonly config: Config }
  | { readonly type: 'registered'; readonly client: number }
  | { readonly type: 'planned'; readonly next: Intent }
  | { readonly type: 'published'; readonly current: number }
  | { readonly type: 'refused'; readonly error: string };

export interface ClientSession {
  readonly seq: number;
  /** The request's canonical text (its digest): a retry must carry the same. */
  readonly request: string;
  readonly result: ControllerCommandResult;
}

export interface ControllerState {
  /** configs[i].num === i; configs[0] is configuration 0. */
  readonly configs: readonly Config[];
  /** client -> its latest request's session record. */
  readonly sessions: Readonly<Record<string, ClientSession>>;
  /** The published configuration: every shard is served by its owner in configs[current]. */
  readonly current: number;
  /** The intent of the change current -> current + 1 in flight, or null. */
  readonly next: Intent | null;
  /** The session id the next RegisterClient issues (ids 0..nextClient-1 are issued). */
  readonly nextClient: number;
}

export interface ControllerStep {
  readonly state: ControllerState;
  readonly result: ControllerCommandResult;
}

export function initialControllerState(shardCount: number): ControllerState {
  return {
    configs: [initialConfig(shardCount)],
    sessions: {},
    current: 0,
    next: null,
    nextClient: 0,
  };
}

export function latestConfig(state: ControllerState): Config {
  const latest = state.configs[state.configs.length - 1];
  assert(latest !== undefined, 'a controller state holds at least configuration 0');
  return latest;
}

const isRecord = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const refused = (state: ControllerState, error: string): ControllerStep =>
  ({ state, result: { type: 'refused', error } });

/**
 * The operation's canonical text: equal for equal operations whatever the order the caller
 * built them in (group keys iterate in ascending order; leave's gids are sorted).
 */
export function canonicalOperation(operation: ControllerOperation): string {
  switch (operation.type) {
    case 'join':
      return JSON.stringify(['join', operation.groups]);
    case 'leave':
      return JSON.stringify(['leave', operation.gids.slice().sort((a, b) => a - b)]);
    case 'move':
      return JSON.stringify(['move', operation.shard, operation.gid]);
    case 'query':
      return JSON.stringify(['query', operation.num]);
  }
}

/**
 * Query(num): -1 or past the end is the latest; another negative or non-integer is refused.
 * (Bug query-answers-older: an earlier configuration n is answered with n - 1.)
 */
export function queryConfig(
  state: ControllerState,
  num: number,
  bugs: ControllerBugs = noControllerBugs,
): ControllerCommandResult {
  if (!Number.isSafeInteger(num) || num < -1) {
    return { type: 'refused', error: `query: bad num ${num}` };
  }
  const latest = num === -1 || num >= state.configs.length;
  if (latest) return { type: 'config', config: latestConfig(state) };
  const older = bugs['query-answers-older'] === true && num > 0;
  return { type: 'config', config: state.configs[older ? num - 1 : num]! };
}

/**
 * Whether `result` names a published configuration of `state`: one numbered at most
 * `current`, so every move into it is done and its owners serve their shards (the clerk
 * polls a Query until its configuration is; a Join / Leave / Move's new one is not yet).
 */
export function publishesConfig(state: ControllerState, result: ControllerCommandResult): boolean {
  return result.type === 'config' && result.config.num <= state.current;
}

function appendConfig(
  state: ControllerState,
  result: ControllerResult<Config | null>,
): ControllerStep {
  if (!result.ok) return refused(state, result.error);
  if (result.value === null) {
    return { state, result: { type: 'config', config: latestConfig(state) } };
  }
  const config = result.value;
  assert(config.num === latestConfig(state).num + 1, 'a new configuration is numbered latest + 1');
  const configs = [...state.configs, config];
  return { state: { ...state, configs }, result: { type: 'config', config } };
}

/**
 * Applies one client operation, with no session bookkeeping (the `controller` model calls
 * this). A switch, not ts-pattern: the checker calls this for every successor and `match`
 * cost a fifth of its time; `never` keeps the switch exhaustive.
 */
export function applyOperation(
  state: ControllerState,
  operation: ControllerOperation,
  bugs: ControllerBugs = noControllerBugs,
): ControllerStep {
  const latest = latestConfig(state);
  switch (operation.type) {
    case 'join':
      return appendConfig(state, joinConfig(latest, operation.groups, bugs));
    case 'leave':
      return appendConfig(state, leaveConfig(latest, operation.gids, bugs));
    case 'move':
      return appendConfig(state, moveConfig(latest, operation.shard, operation.gid));
    case 'query':
      return { state, result: queryConfig(state, operation.num, bugs) };
    default:
      return unknownCommand(state, operation);
  }
}

/** An unknown command (a newer peer, a corrupt entry) is refused, not thrown. */
function unknownCommand(state: ControllerState, command: never): ControllerStep {
  return refused(state, `unknown controller command ${JSON.stringify(command)}`);
}

/** Applies one committed client command: deduplicated by (client, seq), then applied. */
function applyClientCommand(
  state: ControllerState,
  command: ClientCommand,
  bugs: ControllerBugs,
): ControllerStep {
  const { client, seq } = command;
  if (typeof client !== 'string' || !Number.isSafeInteger(seq) || seq < 0) {
    return refused(state, `bad session: client ${String(client)} seq ${String(seq)}`);
  }
  const malformed = (command.type === 'join' && !isRecord(command.groups)) ||
    (command.type === 'leave' && !Array.isArray(command.gids));
  if (malformed) return refused(state, `${command.type}: malformed arguments`);
  const text = canonicalOperation(command);
  const session = Object.hasOwn(state.sessions, client) ? state.sessions[client] : undefined;
  if (session !== undefined && seq < session.seq) {
    return refused(state, `stale: client ${client} seq ${seq} < ${session.seq}`);
  }
  if (session !== undefined && seq === session.seq) {
    if (session.request === text) return { state, result: session.result };
    return refused(state, `identity-conflict: client ${client} seq ${seq} was ${session.request}`);
  }
  const step = applyOperation(state, command, bugs);
  // Deep-frozen, as a produce() leaves its result (a client cannot change what retries get),
  // for a fraction of a draft's cost: every replica applies every command.
  const record: ClientSession = { seq, request: text, result: step.result };
  const sessions: Record<string, ClientSession> = { ...step.state.sessions, [client]: record };
  return { state: freeze({ ...step.state, sessions }, true), result: step.result };
}

/**
 * The driver's plan for configuration `num`: records next = (num, planMoves(current, num)).
 * A repeat of the plan in flight returns it unchanged (a new driver may propose it again).
 */
function applyPlan(state: ControllerState, num: number, bugs: ControllerBugs): ControllerStep {
  const skip = bugs['skip-config'];
  // skip-config: plans from current straight to the newest configuration, even over an
  // in-flight intent (seed 1: "query the next config, not the latest").
  const target = skip ? state.configs.length - 1 : num;
  if (state.next !== null && state.next.num === target) {
    return { state, result: { type: 'planned', next: state.next } };
  }
  if (state.next !== null && !skip) {
    return refused(state, `plan: configuration ${state.next.num} is in flight`);
  }
  if (!skip && target !== state.current + 1) {
    return refused(state, `plan: ${String(num)} is not current + 1 = ${state.current + 1}`);
  }
  if (!Number.isSafeInteger(target) || target <= state.current || target >= state.configs.length) {
    return refused(state, `plan: no configuration ${String(num)} recorded`);
  }
  const next: Intent = { num: target, moves: planMoves(state.configs, state.current, target) };
  const planned = produce(state, (draft) => {
    draft.next = castDraft(next);
  });
  return { state: planned, result: { type: 'planned', next } };
}

/** The driver's publish of configuration `num`: current := num, next cleared. */
function applyPublish(state: ControllerState, num: number): ControllerStep {
  if (state.next === null || state.next.num !== num) {
    return refused(state, `publish: configuration ${String(num)} is not the one in flight`);
  }
  const published = produce(state, (draft) => {
    draft.current = num;
    draft.next = null;
  });
  return { state: published, result: { type: 'published', current: num } };
}

/** The controller replica's apply function: one committed command in, state and result out. */
export function applyControllerCommand(
  state: ControllerState,
  command: ControllerCommand,
  bugs: ControllerBugs = noControllerBugs,
): ControllerStep {
  if (typeof command !== 'object' || command === null) return refused(state, 'not a command');
  switch (command.type) {
    case 'plan':
      return applyPlan(state, command.num, bugs);
    case 'publish':
      return applyPublish(state, command.num);
    case 'register-client': {
      const client = state.nextClient;
      const registered = produce(state, (draft) => {
        draft.nextClient = client + 1;
      });
      return { state: registered, result: { type: 'registered', client } };
    }
    case 'join':
    case 'leave':
    case 'move':
    case 'query':
      return applyClientCommand(state, command, bugs);
    default:
      return unknownCommand(state, command);
  }
}
