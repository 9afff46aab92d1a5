/**
 * The `raft` model: N servers running the node-local functions of election.ts,
 * replication.ts and compaction.ts, composed with a network bag and an environment
 * (timeouts, client values, crash + restart, log compaction), within bounds.
 *
 * How it differs from raft.tla (see tla-preset.ts for the exact transcription), always as a
 * refinement of the same protocol (every step here is a step, or a short sequence of steps,
 * of raft.tla extended with snapshots):
 * - A candidate votes for itself at Timeout, and a server handling a message with a newer term
 *   first becomes a follower of it (raft.tla's UpdateTerm) in the same step.
 * - A candidate becomes leader on the deciding vote, and a leader advances its commit index
 *   when a response moves matchIndex (raft.tla's BecomeLeader and AdvanceCommitIndex, fused).
 * - Messages leave the bag when handled; commitIndex never decreases; persisted state is kept
 *   apart from volatile state and only `persist` effects write it.
 * - Log compaction (§7): CompactLog up to the commit index, InstallSnapshot and its handler.
 * Restarts and compactions are bounded by counters; terms, log lengths and copies in flight
 * by the state constraint, as in TLC.
 */
import type { Model } from '../../checker/model.js';
import { assert } from '../assert.js';
import { raftCodec, writeRaftView } from './codec.js';
import { compactLog, installSnapshot } from './compaction.js';
import { becomeLeader, requestVote, timeout } from './election.js';
import { raftInvariants } from './invariants.js';
import { lastLogIndex, termAt, valueAt } from './log.js';
import type { CommitRecord, RaftBounds, RaftModelState } from './model-state.js';
import { copiesInFlight, envelopeKey, removeMessage, sendMessage, type Bag } from './network.js';
import { advanceCommitIndex, appendEntries, clientRequest } from './replication.js';
import { initialServer, receive, restart } from './server.js';
import type { Effect, Envelope, RaftOptions, RaftServer, Step } from './types.js';

export type RaftAction =
  | { readonly type: 'Timeout' | 'Restart' | 'CompactLog'; readonly server: number }
  | {
      readonly type: 'RequestVote' | 'AppendEntries' | 'InstallSnapshot';
      readonly server: number;
      readonly peer: number;
    }
  | { readonly type: 'ClientRequest'; readonly server: number; readonly value: number }
  | { readonly type: 'Deliver' | 'Duplicate' | 'Drop'; readonly envelope: Envelope };

export function initialModelState(bounds: RaftBounds): RaftModelState {
  const servers = Array.from({ length: bounds.servers }, (_, id) =>
    initialServer(id, bounds.servers),
  );
  return {
    servers,
    persisted: servers.map(({ currentTerm, votedFor, log, snapshot }) => ({
      currentTerm,
      votedFor,
      log,
      snapshot,
    })),
    messages: [],
    restarts: 0,
    compactions: 0,
    elected: [],
    committed: [],
    leaderLogRewritten: false,
  };
}

/** What the network and the disk do with a step's effects, in order. */
function perform(state: RaftModelState, id: number, step: Step): RaftModelState {
  let messages: Bag = state.messages;
  let persisted = state.persisted;
  for (const effect of step.effects as readonly Effect[]) {
    if (effect.type === 'send') {
      messages = sendMessage(messages, { from: id, to: effect.to, message: effect.message });
    } else if (effect.type === 'persist') {
      persisted = persisted.slice();
      (persisted as unknown[])[id] = effect.state;
    }
  }
  const servers = state.servers.slice();
  servers[id] = step.server;
  return { ...state, servers, messages, persisted };
}

/** The fused follow-ups of the default model: become leader, then commit, when enabled. */
function settle(step: Step, options: RaftOptions): Step {
  let current = step;
  const elected = becomeLeader(current.server);
  if (elected)
    current = { server: elected.server, effects: [...current.effects, ...elected.effects] };
  const committed = advanceCommitIndex(current.server, options);
  if (committed)
    current = { server: committed.server, effects: [...current.effects, ...committed.effects] };
  return current;
}

function localStep(
  state: RaftModelState,
  action: RaftAction,
  options: RaftOptions,
  bounds: RaftBounds,
): Step | null {
  switch (action.type) {
    case 'Timeout': {
      const step = timeout(state.servers[action.server]!, options);
      return step && settle(step, options);
    }
    case 'Restart':
      if (state.restarts >= bounds.maxRestarts) return null;
      return restart(action.server, bounds.servers, state.persisted[action.server]!);
    case 'CompactLog': {
      if (state.compactions >= bounds.maxCompactions) return null;
      const server = state.servers[action.server]!;
      return compactLog(server, server.commitIndex, options);
    }
    case 'RequestVote':
      return requestVote(state.servers[action.server]!, action.peer);
    case 'AppendEntries':
      return appendEntries(state.servers[action.server]!, action.peer);
    case 'InstallSnapshot':
      return installSnapshot(state.servers[action.server]!, action.peer);
    case 'ClientRequest': {
      const step = clientRequest(state.servers[action.server]!, action.value, options);
      return step && settle(step, options);
    }
    case 'Deliver': {
      const { from, to, message } = action.envelope;
      return settle(receive(state.servers[to]!, from, message, options), options);
    }
    case 'Duplicate':
    case 'Drop':
      return null;
  }
}

function serverOf(action: RaftAction): number {
  return 'envelope' in action ? action.envelope.to : action.server;
}

/** The proof-only history after a step of server `id` from `before` to `after`. */
export function recordHistory(
  state: RaftModelState,
  before: RaftServer,
  after: RaftServer,
): RaftModelState {
  let { elected, committed, leaderLogRewritten } = state;
  const term = after.currentTerm;
  if (after.role === 'leader' && (before.role !== 'leader' || before.currentTerm !== term)) {
    elected = elected.slice();
    while (elected.length <= term) (elected as number[]).push(0);
    (elected as number[])[term] = elected[term]! | (1 << after.id);
  }
  if (after.role === 'leader' && after.commitIndex > committed.length) {
    const records: CommitRecord[] = committed.slice();
    for (let index = committed.length + 1; index <= after.commitIndex; index++) {
      records.push({
        index,
        term: termAt(after, index)!,
        value: valueAt(after, index)!,
        inTerm: term,
      });
    }
    committed = records;
  }
  if (before.role === 'leader' && after.role === 'leader' && before.currentTerm === term) {
    for (let index = 1; index <= lastLogIndex(before) && !leaderLogRewritten; index++) {
      const beforeTerm = termAt(before, index);
      const afterTerm = termAt(after, index);
      if (valueAt(before, index) !== valueAt(after, index)) leaderLogRewritten = true;
      if (beforeTerm !== undefined && afterTerm !== undefined && beforeTerm !== afterTerm)
        leaderLogRewritten = true;
    }
  }
  if (
    elected === state.elected &&
    committed === state.committed &&
    leaderLogRewritten === state.leaderLogRewritten
  ) {
    return state;
  }
  return { ...state, elected, committed, leaderLogRewritten };
}

/** A model step: the successor and the effects the acting server asked for. */
export interface ModelStep {
  readonly state: RaftModelState;
  readonly effects: readonly Effect[];
}

export function stepModel(
  state: RaftModelState,
  action: RaftAction,
  options: RaftOptions,
  bounds: RaftBounds,
): ModelStep | null {
  const key = 'envelope' in action ? keyOf(state.messages, action.envelope) : undefined;
  if ('envelope' in action && key === undefined) return null;
  if (action.type === 'Duplicate') {
    return {
      state: { ...state, messages: sendMessage(state.messages, action.envelope) },
      effects: [],
    };
  }
  if (action.type === 'Drop')
    return { state: { ...state, messages: removeMessage(state.messages, key!) }, effects: [] };
  const step = localStep(state, action, options, bounds);
  if (step === null) return null;
  const id = serverOf(action);
  const consumed =
    key === undefined ? state : { ...state, messages: removeMessage(state.messages, key) };
  let next = perform(consumed, id, step);
  if (action.type === 'Restart') next = { ...next, restarts: next.restarts + 1 };
  if (action.type === 'CompactLog') next = { ...next, compactions: next.compactions + 1 };
  return { state: recordHistory(next, state.servers[id]!, step.server), effects: step.effects };
}

export function nextModelState(
  state: RaftModelState,
  action: RaftAction,
  options: RaftOptions,
  bounds: RaftBounds,
): RaftModelState | null {
  return stepModel(state, action, options, bounds)?.state ?? null;
}

/** The bag key of an action's message: by identity first (the checker's own actions). */
function keyOf(bag: Bag, envelope: Envelope): string | undefined {
  const same = bag.find((item) => item.envelope === envelope);
  if (same) return same.key;
  const key = envelopeKey(envelope);
  return bag.some((item) => item.key === key) ? key : undefined;
}

export function withinRaftBounds(state: RaftModelState, bounds: RaftBounds): boolean {
  for (const server of state.servers) {
    if (server.currentTerm > bounds.maxTerm || lastLogIndex(server) > bounds.maxLog) return false;
  }
  return copiesInFlight(state.messages) <= bounds.maxMsgs;
}

function localActions(bounds: RaftBounds): RaftAction[] {
  const actions: RaftAction[] = [];
  const { servers, values } = bounds;
  for (let server = 0; server < servers; server++) {
    actions.push({ type: 'Timeout', server });
    for (let peer = 0; peer < servers; peer++)
      if (peer !== server) actions.push({ type: 'RequestVote', server, peer });
    for (let value = 0; value < values; value++)
      actions.push({ type: 'ClientRequest', server, value });
    for (let peer = 0; peer < servers; peer++) {
      if (peer !== server)
        actions.push(
          { type: 'AppendEntries', server, peer },
          { type: 'InstallSnapshot', server, peer },
        );
    }
    actions.push({ type: 'Restart', server }, { type: 'CompactLog', server });
  }
  return actions;
}

export function raftLabel(action: RaftAction): string {
  const name = (id: number) => `s${id + 1}`;
  switch (action.type) {
    case 'RequestVote':
    case 'AppendEntries':
    case 'InstallSnapshot':
      return `${action.type}(${name(action.server)}, ${name(action.peer)})`;
    case 'ClientRequest':
      return `ClientRequest(${name(action.server)}, v${action.value + 1})`;
    case 'Deliver':
    case 'Duplicate':
    case 'Drop': {
      const { from, to, message } = action.envelope;
      const { type, ...fields } = message;
      return `${action.type}(${type} ${name(from)}->${name(to)} ${JSON.stringify(fields)})`;
    }
    default:
      return `${action.type}(${name(action.server)})`;
  }
}

export function createRaftModel(
  bounds: RaftBounds,
  options: RaftOptions = {},
  symmetry = false,
): Model<RaftModelState, RaftAction> {
  assert(bounds.servers >= 1 && bounds.servers <= 7, 'raft: 1..7 servers');
  const fixed = localActions(bounds);
  return {
    name: 'raft',
    initialStates: () => [initialModelState(bounds)],
    actions: (state) => {
      if (state.messages.length === 0) return fixed;
      const actions = fixed.slice();
      for (const kind of ['Deliver', 'Duplicate', 'Drop'] as const) {
        for (const item of state.messages) actions.push({ type: kind, envelope: item.envelope });
      }
      return actions;
    },
    next: (state, action) => nextModelState(state, action, options, bounds),
    label: raftLabel,
    invariants: raftInvariants,
    withinBounds: (state) => withinRaftBounds(state, bounds),
    codec: raftCodec(bounds),
    // Traces show the bag as envelopes with counts (its sort key is an implementation detail).
    variables: (state) => ({
      ...state,
      messages: state.messages.map(({ envelope, count }) => ({ ...envelope, count })),
    }),
    ...(symmetry
      ? { writeView: (state: RaftModelState, out) => writeRaftView(state, out, bounds) }
      : {}),
  };
}
