/**
 * The client's step (DESIGN §2's actor shape; the MIT 6.5840 clerk's loop, with the sessions
 * of Raft dissertation §6.3): `stepClient(state, input)` returns the next state and the
 * effects the shell performs. The `migration` model's clients and impl/clerk run this very
 * function; the shell keeps sockets, timers and the deadline, and decides nothing.
 *
 * Retry rules, one per input:
 * - request: take the next seq (kept by every retry), register a session first if there is
 *   none, route by key2shard over the cached configuration (none cached: ask for one).
 * - reply: a value (a get) or ok (a put or append) answers the application; ErrWrongGroup (the group does not serve the
 *   shard: it never held it, froze it, or handed it over) asks for a configuration after a
 *   pause; wrong-leader tries the named leader, else the next server, pausing after a round
 *   in which nobody led; any other error or a shell's refusal is definitive.
 * - timeout: try the next server; after `silentRoundsBeforeQuery` rounds without an answer,
 *   ask for a configuration (the group may have left).
 * - config: kept when newer than the cached one; a request waiting for it is routed again
 *   (no owner yet: ask again after a pause).
 * - deadline: `unknown` once a request left (it may have taken effect), else `refused`.
 */
import { assert } from '../assert.js';
import { unassignedGid, type Config } from '../controller/types.js';
import { key2shard } from '../group/digest.js';
import { sameRequest } from '../group/retry-admission.js';
import { nextServer } from './leader-search.js';
import type { ClientRequest } from '../group/types.js';
import type {
  ClientEffect,
  ClientInput,
  ClientOutcome,
  ClientSettings,
  ClientState,
  ClientStep,
  Outstanding,
  ServerReply,
} from './types.js';

/** A client with no request outstanding. `session` null: it registers on its first request. */
export function initialClient(
  settings: ClientSettings,
  session: number | null,
  nextSeq: number,
  config: ClientState['config'] = null,
): ClientState {
  assert(settings.silentRoundsBeforeQuery >= 1, 'a client needs one silent round at least');
  assert(Number.isSafeInteger(nextSeq) && nextSeq >= 0, `bad first seq ${nextSeq}`);
  return { settings, session, nextSeq, config, leaders: {}, outstanding: null };
}

export function stepClient(state: ClientState, input: ClientInput): ClientStep {
  switch (input.type) {
    case 'request':
      return takeRequest(state, input);
    case 'registered':
      return handleRegistered(state, input.session);
    case 'register-failed': {
      const outstanding = state.outstanding;
      if (outstanding?.stage !== 'session') return unchanged(state);
      return finish(state, { status: 'refused', error: `register: ${input.error}` });
    }
    case 'config':
      return handleConfig(state, input.config);
    case 'reply':
      return handleReply(state, input.request, input.server, input.reply);
    case 'timeout':
      return handleTimeout(state);
    case 'deadline':
      return handleDeadline(state);
  }
}

/** The request an attempt of `outstanding` carries. */
export function attemptRequest(state: ClientState, outstanding: Outstanding): ClientRequest {
  assert(state.session !== null, 'a request is sent only within a session');
  const { seq, op, key, value } = outstanding;
  return { client: state.session, seq, op, key, value };
}

function unchanged(state: ClientState): ClientStep {
  return { state, effects: [] };
}

function takeRequest(
  state: ClientState,
  input: Extract<ClientInput, { type: 'request' }>,
): ClientStep {
  assert(state.outstanding === null, 'a client has one request outstanding');
  const { op, key, value } = input;
  const outstanding: Outstanding = {
    op, key, value, seq: state.nextSeq, stage: 'session', target: null, tries: 0, sent: false,
  };
  const taken = { ...state, nextSeq: state.nextSeq + 1, outstanding };
  if (state.session === null) return { state: taken, effects: [{ type: 'register' }] };
  return route(taken, false);
}

function handleRegistered(state: ClientState, session: number): ClientStep {
  assert(Number.isSafeInteger(session) && session >= 0, `bad session id ${session}`);
  if (state.session !== null) return unchanged(state);
  const registered = { ...state, session };
  if (registered.outstanding?.stage !== 'session') return unchanged(registered);
  return route(registered, false);
}

function handleConfig(state: ClientState, config: ClientState['config']): ClientStep {
  const newer = config !== null && (state.config === null || config.num > state.config.num);
  // Leader beliefs stay: a group keeps its servers across configurations (route checks).
  const current = newer ? { ...state, config } : state;
  assert(current.config === null || current.config.num >= (state.config?.num ?? 0),
    'the cached configuration went back');
  if (current.outstanding?.stage !== 'config') return unchanged(current);
  return route(current, true);
}

/**
 * Sends an attempt to the owner of the request's shard in the cached configuration; asks for
 * a configuration when there is none or it names no owner (after a pause if `pauseOnMiss`).
 */
function route(state: ClientState, pauseOnMiss: boolean): ClientStep {
  const outstanding = state.outstanding;
  assert(outstanding !== null && outstanding.stage !== 'reply', 'route: nothing to route');
  const config = state.config;
  const gid = config === null
    ? unassignedGid
    : config.shards[key2shard(outstanding.key, config.shards.length)] ?? unassignedGid;
  const servers = config?.groups[gid] ?? [];
  if (gid === unassignedGid || servers.length === 0) {
    return askConfig(state, config !== null && pauseOnMiss);
  }
  const believed = state.leaders[gid];
  const server = believed !== undefined && servers.includes(believed) ? believed : servers[0]!;
  return attempt(state, { ...outstanding, tries: 0 }, gid, server, false);
}

/** One attempt of the outstanding request to `server` of group `gid`. */
function attempt(
  state: ClientState,
  outstanding: Outstanding,
  gid: number,
  server: string,
  pause: boolean,
): ClientStep {
  assert(gid !== unassignedGid, 'an attempt goes to a group');
  const target = { gid, server };
  const next: Outstanding = { ...outstanding, stage: 'reply', target, sent: true };
  const sent = { ...withLeader(state, gid, server), outstanding: next };
  const request = attemptRequest(sent, next);
  const retry = outstanding.tries;
  return { state: sent, effects: [{ type: 'send', gid, server, request, pause, retry }] };
}

/** The leader cache with `server` believed to lead `gid` (only a non-first server is kept). */
function withLeader(state: ClientState, gid: number, server: string): ClientState {
  const servers = state.config?.groups[gid] ?? [];
  if (!servers.includes(server)) return state;
  const first = servers[0] === server;
  if (first ? !(gid in state.leaders) : state.leaders[gid] === server) return state;
  const leaders: Record<number, string> = { ...state.leaders };
  if (first) delete leaders[gid];
  else leaders[gid] = server;
  return { ...state, leaders };
}

/** The outstanding request waits for a configuration: one is asked for. */
function askConfig(state: ClientState, pause: boolean): ClientStep {
  const outstanding = state.outstanding;
  assert(outstanding !== null, 'askConfig: nothing outstanding');
  const waiting: Outstanding = { ...outstanding, stage: 'config', target: null, tries: 0 };
  return { state: { ...state, outstanding: waiting }, effects: [{ type: 'query', pause }] };
}

function finish(state: ClientState, outcome: ClientOutcome): ClientStep {
  assert(state.outstanding !== null, 'finish: nothing outstanding');
  const effect: ClientEffect = { type: 'reply', outcome };
  return { state: { ...state, outstanding: null }, effects: [effect] };
}

function handleReply(
  state: ClientState,
  request: ClientRequest,
  server: string,
  reply: ServerReply,
): ClientStep {
  const outstanding = state.outstanding;
  // A reply to a request the client no longer waits for (answered, replaced) is dropped.
  if (outstanding?.stage !== 'reply') return unchanged(state);
  if (!sameRequest(request, attemptRequest(state, outstanding))) return unchanged(state);
  const target = outstanding.target;
  assert(target !== null, 'an attempt in flight has a target');
  if (reply.type === 'wrong-leader') return nextAttempt(state, 'wrong-leader', reply.leader);
  if (reply.type === 'refused') return finish(state, { status: 'refused', error: reply.error });
  const answered = withLeader(state, target.gid, server);
  const result = reply.result;
  // A get's answer is the value; a write's is only that it applied.
  if (result.type === (request.op === 'get' ? 'value' : 'ok')) {
    return finish(answered, { status: 'ok', value: result.type === 'value' ? result.value : '' });
  }
  if (result.type === 'error' && result.error === 'ErrWrongGroup') {
    return askConfig(answered, true);
  }
  const error = result.type === 'error' ? result.error : `unexpected result ${result.type}`;
  return finish(answered, { status: 'refused', error });
}

function handleTimeout(state: ClientState): ClientStep {
  if (state.outstanding?.stage !== 'reply') return unchanged(state);
  return nextAttempt(state, 'silence', null);
}

/**
 * The attempt in flight got no answer (silence, or wrong-leader naming `hint`): the next
 * server, the hinted one first; after the rounds of silence allowed, a configuration.
 */
function nextAttempt(
  state: ClientState,
  answer: 'silence' | 'wrong-leader',
  hint: string | null,
): ClientStep {
  const outstanding = state.outstanding;
  assert(outstanding?.stage === 'reply' && outstanding.target !== null, 'no attempt in flight');
  const { gid, server } = outstanding.target;
  const servers = state.config?.groups[gid] ?? [server];
  const tries = outstanding.tries + 1;
  if (tries >= state.settings.silentRoundsBeforeQuery * servers.length) {
    return askConfig(state, true);
  }
  const next = nextServer(servers, server, hint);
  // A round ending in wrong-leader: an election is under way; give it time (a silent
  // attempt already waited its timeout).
  const pause = answer === 'wrong-leader' && tries % servers.length === 0;
  return attempt(state, { ...outstanding, tries }, gid, next, pause);
}

/** The deadline passed: a request that left may have taken effect, so it is unknown. */
function handleDeadline(state: ClientState): ClientStep {
  const outstanding = state.outstanding;
  if (outstanding === null) return unchanged(state);
  if (outstanding.sent) {
    const error = `${outstanding.op}: no answer before the deadline`;
    return finish(state, { status: 'unknown', error });
  }
  assert(outstanding.stage !== 'reply', 'an attempt asked for is counted as sent');
  return finish(state, { status: 'refused', error: unsentReason(state.config, outstanding) });
}

/** Why nothing was sent: the shard has no owner in the configuration, or none was learned. */
function unsentReason(config: Config | null, outstanding: Outstanding): string {
  if (config !== null) {
    const shard = key2shard(outstanding.key, config.shards.length);
    if ((config.shards[shard] ?? unassignedGid) === unassignedGid) {
      return `${outstanding.op}: shard ${shard} is unassigned in configuration ${config.num} ` +
        '(no group serves it); no request was sent';
    }
  }
  return `${outstanding.op}: the deadline passed before any request was sent`;
}
