/**
 * The `raft` model: N nodes, each driven only through the step function (step.ts), composed
 * with a network bag and an environment (election timeouts, heartbeats to one peer, client
 * values, reads, crash + restart, the application's snapshots), within bounds. The model
 * decides nothing of the protocol: it picks inputs, performs the effects (the bag takes the
 * sends, the disk the saves, each server's application the apply and restoreSnapshot
 * effects) and keeps proof-only history for the invariants.
 *
 * How it differs from raft.tla (see tla-preset.ts for the exact transcription), always as a
 * refinement of the same protocol extended with snapshots, the no-op entry of §6.4, ReadIndex
 * and, as options, PreVote and CheckQuorum (§9.6):
 * - A candidate votes for itself at Timeout, and a node handling a message with a newer term
 *   first becomes a follower of it (raft.tla's UpdateTerm) in the same step.
 * - A candidate becomes leader on the deciding vote and appends its no-op entry; a leader
 *   advances its commit index in the step that lets it (BecomeLeader and AdvanceCommitIndex
 *   happen inside the node's step).
 * - Heartbeat(i, j) is raft.tla's RequestVote(i, j) for a candidate and AppendEntries(i, j)
 *   for a leader (one entry at most), or InstallSnapshot when the entry is compacted.
 * - Messages leave the bag when handled; commitIndex never decreases but at a restart;
 *   saved state is kept apart from volatile state and only save effects write it.
 * - The disk follows the sync duties of spec/raft's SyncDuty: a step with a `beforeSends`
 *   save syncs before its sends, in the same action (a crash before that sync is a crash
 *   before the step: nothing of it was sent); a leader's own entries become durable at a
 *   Sync(i) action, which reports them to the node (the `logDurable` input), and its
 *   AppendEntries may leave before; a commitIndex-only hard state rides the next sync. A
 *   Restart loads only what is durable (raft.tla writes every change to disk at once).
 * Restarts, compactions and reads are bounded by counters; terms, log lengths and copies in
 * flight by the state constraint, as in TLC.
 */
import type { Model } from '../../checker/model.js';
import { raftDiagram } from './diagram.js';
import { assert } from '../../spec/assert.js';
import { raftCodec, writeRaftView } from './codec.js';
import { raftInvariantsFor } from './invariants.js';
import { lastLogIndex, persistedLog, termAt } from '../../spec/raft/log.js';
import {
  commandAt,
  patchState,
  type CommitRecord,
  type ModelData,
  type ModelEnvelope,
  type ModelNode,
  type ModelPersisted,
  type RaftBounds,
  type RaftModelState,
} from './model-state.js';
import { copiesInFlight, envelopeKey, removeMessage, sendMessage, type Bag } from './network.js';
import { initialNode, quorum } from '../../spec/raft/node.js';
import { printedMessage, raftVariables, serverName, valueName } from './printing.js';
import { applySave, logDurableInput, mustSyncBeforeSends } from '../../spec/raft/persistence.js';
import { step } from '../../spec/raft/step.js';
import type { Effect, Input, RaftOptions, Step } from '../../spec/raft/types.js';
import { raftSometimes } from './sometimes.js';

export type RaftAction =
  | {
      readonly type: 'Timeout' | 'Restart' | 'CompactLog' | 'ReadIndex' | 'Sync';
      readonly server: number;
    }
  | { readonly type: 'Heartbeat'; readonly server: number; readonly peer: number }
  | { readonly type: 'ClientRequest'; readonly server: number; readonly value: number }
  | { readonly type: 'Deliver' | 'Duplicate' | 'Drop'; readonly envelope: ModelEnvelope };

type ModelStepResult = Step<number, readonly (number | null)[]>;
type ModelEffect = Effect<number, readonly (number | null)[]>;

export function initialModelState(bounds: RaftBounds): RaftModelState {
  const servers = Array.from({ length: bounds.servers }, (_, id) =>
    initialNode<number, readonly (number | null)[]>(id, bounds.servers),
  );
  const empty: ModelPersisted = {
    hardState: { currentTerm: 0, votedFor: null, commitIndex: 0 },
    snapshot: null,
    entries: [],
  };
  const disks = servers.map(() => empty);
  return {
    servers,
    persisted: disks,
    durable: disks,
    applied: servers.map(() => []),
    messages: [],
    restarts: 0,
    compactions: 0,
    readsIssued: 0,
    readsWaiting: [],
    staleRead: false,
    elected: [],
    committed: [],
    leaderLogRewritten: false,
    termRaisedAlone: false,
    leaseBroken: false,
    commitRolledBack: false,
    applyOutOfOrder: false,
  };
}

/** The application's state after it performs the restoreSnapshot or apply effect. */
interface Application {
  readonly applied: ModelData;
  /** Whether an apply handed an index other than the next one (twice, or one skipped). */
  readonly outOfOrder: boolean;
}

function performApplication(application: Application, effect: ModelEffect): Application {
  if (effect.type === 'restoreSnapshot') {
    return { ...application, applied: effect.snapshot.data };
  }
  if (effect.type !== 'apply' || effect.entries.length === 0) return application;
  const applied = application.applied.slice();
  let outOfOrder = application.outOfOrder;
  for (const entry of effect.entries) {
    if (entry.index !== applied.length + 1) outOfOrder = true;
    applied.push(entry.command);
  }
  return { applied, outOfOrder };
}

/**
 * Effects nobody in the model acts on: timers (the environment fires Timeout and Heartbeat
 * whenever its bounds allow, as raft.tla does) and what a step tells the shell about its
 * proposals and its leadership (the model's clients wait for nothing).
 */
function isNotice(effect: ModelEffect): boolean {
  switch (effect.type) {
    case 'setTimer':
    case 'cancelTimer':
    case 'sendSoon':
    case 'proposed':
    case 'proposalRefused':
    case 'leadershipLost':
    case 'leaderReady':
      return true;
    default:
      return false;
  }
}

/**
 * What the network, the disk, the application and the clients do with a step's effects. The
 * disk writes every save (applySave); a `beforeSends` save syncs the disk before the sends.
 */
function perform(state: RaftModelState, id: number, result: ModelStepResult): RaftModelState {
  let messages: Bag = state.messages;
  let persisted = state.persisted[id]!;
  let application: Application = { applied: state.applied[id]!, outOfOrder: false };
  let { readsWaiting, staleRead } = state;
  for (const effect of result.effects) {
    if (effect.type === 'send') {
      messages = sendMessage(messages, { from: id, to: effect.to, message: effect.message });
    } else if (effect.type === 'readReady' || effect.type === 'readRefused') {
      const record = readsWaiting.find((read) => read.requestId === effect.requestId)!;
      readsWaiting = readsWaiting.filter((read) => read !== record);
      if (effect.type === 'readReady' && effect.index < record.floor) staleRead = true;
    } else if (effect.type === 'restoreSnapshot' || effect.type === 'apply') {
      application = performApplication(application, effect);
    } else if (
      effect.type === 'saveSnapshot' || effect.type === 'saveEntries' ||
      effect.type === 'saveHardState'
    ) {
      persisted = applySave(persisted, effect);
    }
  }
  const servers = state.servers.slice();
  servers[id] = result.node;
  const allPersisted = state.persisted.slice();
  allPersisted[id] = persisted;
  let durable = state.durable;
  if (mustSyncBeforeSends(result.effects)) {
    const synced = durable.slice();
    synced[id] = persisted;
    durable = synced;
  }
  const applied = state.applied.slice();
  applied[id] = application.applied;
  const applyOutOfOrder = state.applyOutOfOrder || application.outOfOrder;
  return patchState(state, {
    servers, messages, persisted: allPersisted, durable, applied, applyOutOfOrder, readsWaiting,
    staleRead,
  });
}

/** The input an action gives its node, or null when the environment's bounds forbid it. */
function inputOf(
  state: RaftModelState,
  action: RaftAction,
  bounds: RaftBounds,
): Input<number, readonly (number | null)[]> | null {
  switch (action.type) {
    case 'Timeout':
      return { type: 'electionTimeout' };
    case 'Heartbeat':
      return { type: 'heartbeat', peer: action.peer };
    case 'ClientRequest':
      return { type: 'propose', commands: [action.value] };
    case 'ReadIndex':
      // Clients send reads to a leader (a follower would only refuse them).
      if (state.readsIssued >= bounds.maxReads) return null;
      if (state.servers[action.server]!.role !== 'leader') return null;
      return { type: 'readIndex', requestId: state.readsIssued + 1 };
    case 'Restart':
      if (state.restarts >= bounds.maxRestarts) return null;
      return { type: 'restart', persisted: state.durable[action.server]! };
    case 'CompactLog': {
      // The application snapshots its own state, at the index it applied.
      if (state.compactions >= bounds.maxCompactions) return null;
      const data = state.applied[action.server]!;
      return { type: 'snapshot', index: data.length, data };
    }
    case 'Deliver': {
      const { from, message } = action.envelope;
      return { type: 'message', from, message };
    }
    case 'Duplicate':
    case 'Drop':
    case 'Sync':
      return null;
  }
}

/**
 * Sync(i): the disk makes what node i wrote durable, then reports it (`logDurable`): a
 * leader counts its own entries from now on. Enabled while a leader's own entries wait (a
 * commitIndex-only hard state alone waits for a sync that something else causes).
 */
function syncDisk(
  state: RaftModelState,
  id: number,
  options: RaftOptions,
): ModelStep | null {
  const written = state.persisted[id]!;
  if (sameLog(state.durable[id]!, written)) return null;
  const durable = state.durable.slice();
  durable[id] = written;
  return reportDurable(patchState(state, { durable }), id, options);
}

/** The storage's report after a sync (`logDurable`): a leader counts its durable entries. */
function reportDurable(state: RaftModelState, id: number, options: RaftOptions): ModelStep {
  const before = state.servers[id]!;
  const result = step(before, logDurableInput(persistedLog(state.durable[id]!)), options);
  assert(!mustSyncBeforeSends(result.effects), 'a report asks for no sync of its own');
  const next = recordHistory(perform(state, id, result), before, result.node);
  return { state: next, effects: result.effects };
}

function sameLog(a: ModelPersisted, b: ModelPersisted): boolean {
  if (a.entries === b.entries && a.snapshot === b.snapshot) return true;
  if (a.entries.length !== b.entries.length) return false;
  const aBase = a.snapshot?.lastIncludedIndex ?? 0;
  if (aBase !== (b.snapshot?.lastIncludedIndex ?? 0)) return false;
  return a.entries.every((entry, at) => {
    const other = b.entries[at]!;
    return entry.term === other.term && entry.command === other.command;
  });
}

function serverOf(action: RaftAction): number {
  return 'envelope' in action ? action.envelope.to : action.server;
}

/** The proof-only history after a step of one node from `before` to `after`. */
export function recordHistory(
  state: RaftModelState,
  before: ModelNode,
  after: ModelNode,
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
      const command = commandAt(after, index)!;
      records.push({ index, term: termAt(after, index)!, command, inTerm: term });
    }
    committed = records;
  }
  if (before.role === 'leader' && after.role === 'leader' && before.currentTerm === term) {
    for (let index = 1; index <= lastLogIndex(before) && !leaderLogRewritten; index++) {
      const beforeTerm = termAt(before, index);
      const afterTerm = termAt(after, index);
      if (commandAt(before, index) !== commandAt(after, index)) leaderLogRewritten = true;
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
  return patchState(state, { elected, committed, leaderLogRewritten });
}

/**
 * The proof-only flags of §9.6: with PreVote, an election timeout alone (no message heard)
 * must not raise a term, unless the node is a quorum by itself; with CheckQuorum, a node in a
 * leader lease must neither answer (`answered`: its step sent something) nor adopt the term of
 * a vote request. The runtime adapter sets them from the real node's step the same way.
 */
export function recordDisruption(
  state: RaftModelState,
  action: RaftAction,
  before: ModelNode,
  after: ModelNode,
  answered: boolean,
  options: Pick<RaftOptions, 'preVote' | 'checkQuorum'>,
): RaftModelState {
  const raised = after.currentTerm > before.currentTerm;
  if (options.preVote === true && action.type === 'Timeout' && raised) {
    if (quorum(before.clusterSize) > 1) return patchState(state, { termRaisedAlone: true });
  }
  if (options.checkQuorum !== true || action.type !== 'Deliver') return state;
  const message = action.envelope.message;
  if (message.type !== 'RequestVoteRequest' && message.type !== 'PreVoteRequest') return state;
  if (before.leader === null || message.term <= before.currentTerm) return state;
  return raised || answered ? patchState(state, { leaseBroken: true }) : state;
}

/** A model step: the successor and the effects the acting node asked for. */
export interface ModelStep {
  readonly state: RaftModelState;
  readonly effects: readonly ModelEffect[];
}

export function stepModel(
  state: RaftModelState,
  action: RaftAction,
  options: RaftOptions,
  bounds: RaftBounds,
): ModelStep | null {
  const result = stepAction(state, action, options, bounds);
  if (result === null || result.state.restarts < bounds.maxRestarts) return result;
  return { state: withoutCommitLag(result.state), effects: result.effects };
}

/**
 * Once no crash remains in the budget, a durable commit index that lags the written one can
 * never be loaded: it is forgotten (the state then equals one without the lag), so the model
 * does not count states that differ only in it. Invariants read durable entries only.
 */
function withoutCommitLag(state: RaftModelState): RaftModelState {
  let durable: ModelPersisted[] | null = null;
  state.durable.forEach((disk, id) => {
    const written = state.persisted[id]!;
    if (disk === written || disk.hardState.commitIndex === written.hardState.commitIndex) return;
    durable ??= state.durable.slice();
    const settled = { ...disk, hardState: written.hardState };
    durable[id] = sameLog(settled, written) ? written : settled;
  });
  return durable === null ? state : patchState(state, { durable });
}

function stepAction(
  state: RaftModelState,
  action: RaftAction,
  options: RaftOptions,
  bounds: RaftBounds,
): ModelStep | null {
  const key = 'envelope' in action ? keyOf(state.messages, action.envelope) : undefined;
  if ('envelope' in action && key === undefined) return null;
  if (action.type === 'Duplicate') {
    return {
      state: patchState(state, { messages: sendMessage(state.messages, action.envelope) }),
      effects: [],
    };
  }
  if (action.type === 'Drop') {
    const messages = removeMessage(state.messages, key!);
    return { state: patchState(state, { messages }), effects: [] };
  }
  if (action.type === 'Sync') return syncDisk(state, action.server, options);
  const input = inputOf(state, action, bounds);
  if (input === null) return null;
  const id = serverOf(action);
  const before = state.servers[id]!;
  const result = step(before, input, options);
  // A timer or a refused proposal alone changes nothing: not a step (a timer is no action).
  const idle = result.node === before && result.effects.every(isNotice);
  if (idle && action.type !== 'Deliver' && action.type !== 'Restart') return null;
  let next =
    key === undefined ? state : patchState(state, { messages: removeMessage(state.messages, key) });
  if (action.type === 'ReadIndex') {
    const read = { requestId: next.readsIssued + 1, floor: next.committed.length };
    const readsWaiting = [...next.readsWaiting, read];
    next = patchState(next, { readsIssued: read.requestId, readsWaiting });
  }
  if (action.type === 'Restart') next = crashed(next, id);
  const appliedBefore = state.applied[id]!.length;
  next = perform(next, id, result);
  if (action.type === 'Restart') next = patchState(next, { restarts: next.restarts + 1 });
  // A restart may come back lower, but only to the commit index it made durable: a
  // commitIndex-only hard state it had not synced is lost (SyncDuty `withNext`), nothing more.
  const restarted = action.type === 'Restart';
  const durableCommit = state.durable[id]!.hardState.commitIndex;
  const floor = restarted ? Math.min(before.commitIndex, durableCommit) : before.commitIndex;
  const lowered = result.node.commitIndex < floor ||
    next.applied[id]!.length < (restarted ? floor : appliedBefore);
  if (lowered && !next.commitRolledBack) next = patchState(next, { commitRolledBack: true });
  if (action.type === 'CompactLog') next = patchState(next, { compactions: next.compactions + 1 });
  next = recordHistory(next, before, result.node);
  next = recordDisruption(next, action, before, result.node,
    result.effects.some((effect) => effect.type === 'send'), options);
  // A leader whose step synced (a snapshot; a lone server's election) hears of it at once.
  if (mustSyncBeforeSends(result.effects) && result.node.role === 'leader') {
    const reported = reportDurable(next, id, options);
    return { state: reported.state, effects: [...result.effects, ...reported.effects] };
  }
  return { state: next, effects: result.effects };
}

export function nextModelState(
  state: RaftModelState,
  action: RaftAction,
  options: RaftOptions,
  bounds: RaftBounds,
): RaftModelState | null {
  return stepModel(state, action, options, bounds)?.state ?? null;
}

/**
 * A crash loses what the disk had not made durable and empties the application's state; the
 * restart's effects rebuild it.
 */
function crashed(state: RaftModelState, id: number): RaftModelState {
  const applied = state.applied.slice();
  applied[id] = [];
  const persisted = state.persisted.slice();
  persisted[id] = state.durable[id]!;
  return patchState(state, { applied, persisted });
}

/** The bag key of an action's message: by identity first (the checker's own actions). */
function keyOf(bag: Bag, envelope: ModelEnvelope): string | undefined {
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
      if (peer !== server) actions.push({ type: 'Heartbeat', server, peer });
    for (let value = 0; value < values; value++)
      actions.push({ type: 'ClientRequest', server, value });
    actions.push({ type: 'ReadIndex', server });
    actions.push({ type: 'Restart', server }, { type: 'CompactLog', server });
    actions.push({ type: 'Sync', server });
  }
  return actions;
}

export function raftLabel(action: RaftAction): string {
  const name = serverName;
  switch (action.type) {
    case 'Heartbeat':
      return `${action.type}(${name(action.server)}, ${name(action.peer)})`;
    case 'ClientRequest':
      return `ClientRequest(${name(action.server)}, ${valueName(action.value)})`;
    case 'Deliver':
    case 'Duplicate':
    case 'Drop': {
      const { from, to, message } = action.envelope;
      const { type, ...fields } = printedMessage(message);
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
    diagram: raftDiagram,
    invariants: raftInvariantsFor(options),
    sometimes: raftSometimes(bounds),
    withinBounds: (state) => withinRaftBounds(state, bounds),
    codec: raftCodec(bounds),
    variables: raftVariables,
    ...(symmetry
      ? { writeView: (state: RaftModelState, out) => writeRaftView(state, out, bounds) }
      : {}),
  };
}
