/**
 * Refinement of Ongaro's raft.tla (dissertation appendix B; issue 10, item 5): every step of
 * the `raft` model, seen through an abstraction function, is a stuttering step or a sequence of at most `maxTlaSteps` actions
 * of the raft.tla transcription (tla-preset.ts, the one that counts TLC's 2,379,781 states).
 * So the TLC calibration covers spec/raft, not only the transcription.
 *
 * The abstraction (our state -> raft.tla's variables), with terms shifted by one (raft.tla
 * starts at term 1, we at 0; an entry's term likewise, the empty log's last term stays 0):
 * - currentTerm, state (role), votedFor, log, commitIndex: the node's own; a no-op entry
 *   (dissertation §6.4) is the extra client value `values` (ClientRequest(i, noop)).
 * - votesGranted: the candidate's; votesResponded: the same set, since our candidate does not
 *   remember refusals (it asks a refusing server again, raft.tla asks each one once a term).
 * - nextIndex, matchIndex: the leader's progress (next, match), with matchIndex[i][i] = 0
 *   (raft.tla counts the leader itself apart); without flow control (no --inflight-window).
 * - messages: the bag, message for message; an AppendEntries response loses the conflict
 *   hint of §5.3 and every message our read sequence; requests carry mcommitIndex.
 * Fields raft.tla never reads in that state are normalised on both sides: votesGranted and
 * votesResponded outside a candidate, nextIndex and matchIndex outside a leader (BecomeLeader
 * and Timeout reset them before use), and the proof-only history (elections, allLogs,
 * voterLog, mlog). Not mapped: our known leader, the read-index state, the disk (`persisted`),
 * the applications and our own proof-only history.
 *
 * Not covered: snapshots (InstallSnapshot has no raft.tla action), PreVote and CheckQuorum;
 * a check with them is refused (refinement-model.ts).
 */
import { assert } from '../../spec/assert.js';
import { logEntriesArray } from '../../spec/raft/log-entries.js';
import type { ModelMessage, ModelNode, RaftModelState } from './model-state.js';
import type { RaftAction } from './model.js';
import { stepTla, type TlaAction } from './tla-actions.js';
import { TlaRaft } from './tla-raft.js';
import {
  absent,
  appendEntriesRequest,
  appendEntriesResponse,
  appendEntry,
  candidate,
  commitIndexOffset,
  entryOf,
  follower,
  leader,
  logLength,
  logOffset,
  matchIndexOffset,
  messageDestination,
  messageLow,
  messageType,
  nextIndexOffset,
  nil,
  requestVoteRequest,
  requestVoteResponse,
  roleOffset,
  votesGrantedOffset,
  votesRespondedOffset,
  voterLogOffset,
  withMessage,
  type TlaState,
} from './tla-state.js';

/** The longest sequence of raft.tla actions one of our steps may stand for. */
export const maxTlaSteps = 8;

const roleCodes = { follower, candidate, leader } as const;

/** The raft.tla instance our model maps onto: one more value, the no-op. */
export function tlaRaftFor(servers: number, values: number): TlaRaft {
  // The constraint's bounds do not matter here: refinement is about the Next relation.
  return new TlaRaft({ servers, values: values + 1, maxTerm: 20, maxLog: 3, maxMsgs: 8 });
}

function packLog(node: ModelNode, noop: number): number {
  assert(node.snapshot === null, 'refinement: snapshots have no raft.tla counterpart');
  let log = 0;
  for (const entry of logEntriesArray(node.log)) {
    log = appendEntry(log, entryOf(entry.term + 1, entry.command ?? noop));
  }
  return log;
}

/** A message's low and high words (high: mcommitIndex for a request, mlog dropped). */
function messageWords(from: number, to: number, message: ModelMessage, noop: number) {
  const term = message.term + 1;
  switch (message.type) {
    case 'RequestVoteRequest': {
      const lastTerm = message.lastLogIndex === 0 ? 0 : message.lastLogTerm + 1;
      const payload = lastTerm | (message.lastLogIndex << 5);
      return { low: messageLow(requestVoteRequest, term, from, to, payload), high: 0 };
    }
    case 'RequestVoteResponse': {
      const payload = message.voteGranted ? 1 : 0;
      return { low: messageLow(requestVoteResponse, term, from, to, payload), high: 0 };
    }
    case 'AppendEntriesRequest': {
      const prevTerm = message.prevLogIndex === 0 ? 0 : message.prevLogTerm + 1;
      const first = message.entries[0];
      const entry = first === undefined ? 0 : entryOf(first.term + 1, first.command ?? noop);
      assert(message.entries.length <= 1, 'refinement: raft.tla sends one entry at most');
      const payload = message.prevLogIndex | (prevTerm << 3) | (entry << 8);
      const low = messageLow(appendEntriesRequest, term, from, to, payload);
      return { low, high: message.leaderCommit << 24 };
    }
    case 'AppendEntriesResponse': {
      const payload = (message.success ? 1 : 0) | (message.matchIndex << 1);
      return { low: messageLow(appendEntriesResponse, term, from, to, payload), high: 0 };
    }
    default:
      throw new Error(`refinement: ${message.type} has no raft.tla counterpart`);
  }
}

/**
 * Sets the fields raft.tla does not read in the state to fixed values and drops the
 * proof-only history, merging messages that differ only in mlog.
 */
export function normalise(raft: TlaRaft, state: TlaState): TlaState {
  const count = raft.bounds.servers;
  const servers = state.servers.slice();
  for (let i = 0; i < count; i++) {
    const base = i * raft.width;
    const role = servers[base + roleOffset]!;
    if (role !== candidate) {
      servers[base + votesGrantedOffset] = 0;
      servers[base + votesRespondedOffset] = 0;
    } else {
      servers[base + votesRespondedOffset] = servers[base + votesGrantedOffset]!;
    }
    for (let j = 0; j < count; j++) {
      if (role !== leader || j === i) {
        servers[base + nextIndexOffset + j] = 1;
        servers[base + matchIndexOffset(count) + j] = 0;
      }
      servers[base + voterLogOffset(count) + j] = absent;
    }
  }
  let messages: number[] = [];
  for (let at = 0; at < state.messages.length; at += 3) {
    const low = state.messages[at]!;
    const request = messageType(low) === appendEntriesRequest;
    const high = request ? state.messages[at + 1]! & ~0xffffff : 0;
    for (let copy = 0; copy < state.messages[at + 2]!; copy++) {
      messages = withMessage(messages, low, high);
    }
  }
  return { servers, messages, elections: [], allLogs: [] };
}

/** The abstraction function: our state as raft.tla's variables, normalised. */
export function abstractState(raft: TlaRaft, state: RaftModelState): TlaState {
  const count = raft.bounds.servers;
  const noop = raft.bounds.values - 1;
  const servers: number[] = Array<number>(count * raft.width).fill(0);
  for (const node of state.servers) {
    assert(node.role !== 'precandidate', 'refinement: PreVote has no raft.tla counterpart');
    const base = node.id * raft.width;
    servers[base] = node.currentTerm + 1;
    servers[base + roleOffset] = roleCodes[node.role];
    servers[base + 2] = node.votedFor ?? nil;
    servers[base + 3] = packLog(node, noop);
    servers[base + commitIndexOffset] = node.commitIndex;
    servers[base + votesGrantedOffset] = node.votesGranted;
    // A non-leader keeps no progress: its fields are normalised below.
    node.progress.forEach((progress, j) => {
      servers[base + nextIndexOffset + j] = progress.next;
      servers[base + matchIndexOffset(count) + j] = progress.match;
    });
  }
  let messages: number[] = [];
  for (const { envelope, count: copies } of state.messages) {
    const { low, high } = messageWords(envelope.from, envelope.to, envelope.message, noop);
    for (let copy = 0; copy < copies; copy++) messages = withMessage(messages, low, high);
  }
  return normalise(raft, { servers, messages, elections: [], allLogs: [] });
}

function keyOf(state: TlaState): string {
  return `${state.servers.join(',')}|${state.messages.join(',')}`;
}

/**
 * The raft.tla actions that may stand for (part of) our action: those of the server that
 * acts, and the receipt of any message to it (its messages to itself included). Only a
 * Timeout votes for itself (RequestVote(i, i)), only Heartbeat(i, j) sends to j, and
 * Timeout, Restart and a client's ClientRequest stand only for themselves.
 */
function candidateActions(
  raft: TlaRaft,
  state: TlaState,
  action: RaftAction,
  server: number,
): TlaAction[] {
  const i = server;
  const actions: TlaAction[] = [];
  // A packed log holds four entries; our logs stay within three (--max-log 3 at most).
  const roomInLog = logLength(state.servers[i * raft.width + logOffset]!) < 3;
  if (action.type === 'Timeout') {
    actions.push({ type: 'Timeout', i }, { type: 'RequestVote', i, j: i });
  }
  if (action.type === 'Restart') actions.push({ type: 'Restart', i });
  if (action.type === 'Heartbeat') {
    actions.push({ type: 'RequestVote', i, j: action.peer });
    actions.push({ type: 'AppendEntries', i, j: action.peer });
  }
  if (roomInLog && action.type === 'ClientRequest') {
    actions.push({ type: 'ClientRequest', i, v: action.value });
  }
  if (roomInLog) actions.push({ type: 'ClientRequest', i, v: raft.bounds.values - 1 });
  actions.push({ type: 'BecomeLeader', i }, { type: 'AdvanceCommitIndex', i });
  for (let at = 0; at < state.messages.length; at += 3) {
    const low = state.messages[at]!;
    if (messageDestination(low) === i) {
      actions.push({ type: 'Receive', low, high: state.messages[at + 1]! });
    }
  }
  return actions;
}

/**
 * Where spec/raft departs from raft.tla on purpose, keeping a commit index that raft.tla
 * lowers (CommitMonotonic: a commit index never decreases):
 * - `follower-keeps-commit`: raft.tla's follower takes a request's mcommitIndex as is, so a
 *   late request from a leader that knows less lowers it; ours keeps the higher one.
 * - `restart-keeps-commit`: raft.tla restarts with commitIndex 0; ours saves it
 *   (hardState.commitIndex) and restarts from it.
 * And where it departs keeping less: raft.tla writes every change to disk at once,
 * - `restart-loses-unsynced`: ours syncs a leader's own entries after sending them
 *   (dissertation §10.2.1, spec/raft SyncDuty), so a crash before that sync loses them (the
 *   leader never counted them: they were not committed on its copy); raft.tla keeps them.
 * Such a step maps when raft.tla's sequence reaches the abstraction of our successor but for
 * that one commit index (and that server's log); it is counted apart, never silently.
 */
export type Deviation = 'follower-keeps-commit' | 'restart-keeps-commit' |
  'restart-loses-unsynced';

/** How a step maps: 0 a stuttering step, k > 0 a sequence of k raft.tla actions. */
export interface StepMapping {
  readonly tlaSteps: number;
  readonly actions: readonly TlaAction[];
  readonly deviation?: Deviation;
}

interface Departure {
  readonly deviation: Deviation;
  readonly server: number;
  readonly commitIndex: number;
  /** raft.tla's packed log for the server, where ours lost part of it. */
  readonly log?: number;
}

/** The commit index (and log) raft.tla gives the acting server where ours differs, if any. */
function deviationOf(
  raft: TlaRaft,
  before: RaftModelState,
  action: RaftAction,
  after: RaftModelState,
): Departure | null {
  if (action.type === 'Restart') {
    const server = action.server;
    const noop = raft.bounds.values - 1;
    const log = packLog(before.servers[server]!, noop);
    if (packLog(after.servers[server]!, noop) !== log) {
      return { deviation: 'restart-loses-unsynced', server, commitIndex: 0, log };
    }
    const kept = after.servers[server]!.commitIndex;
    return kept > 0 ? { deviation: 'restart-keeps-commit', server, commitIndex: 0 } : null;
  }
  if (action.type !== 'Deliver') return null;
  const { to, message } = action.envelope;
  if (message.type !== 'AppendEntriesRequest') return null;
  const kept = after.servers[to]!.commitIndex;
  if (kept !== before.servers[to]!.commitIndex || message.leaderCommit >= kept) return null;
  return { deviation: 'follower-keeps-commit', server: to, commitIndex: message.leaderCommit };
}

/**
 * The shortest sequence of raft.tla actions from abstract(before) to abstract(after), at most
 * maxTlaSteps long (breadth-first over normalised states), else one that reaches it but for
 * a documented deviation, or null when there is none.
 */
export function mapStep(
  raft: TlaRaft,
  before: RaftModelState,
  action: RaftAction,
  after: RaftModelState,
): StepMapping | null {
  const from = abstractState(raft, before);
  const abstractAfter = abstractState(raft, after);
  const target = keyOf(abstractAfter);
  if (keyOf(from) === target) return { tlaSteps: 0, actions: [] };
  if (action.type === 'Duplicate' || action.type === 'Drop') {
    const { from: source, to, message } = action.envelope;
    const { low, high } = messageWords(source, to, message, raft.bounds.values - 1);
    const type = action.type === 'Duplicate' ? 'DuplicateMessage' : 'DropMessage';
    const tla: TlaAction = { type, low, high };
    const next = stepTla(raft, from, tla);
    return next && keyOf(normalise(raft, next)) === target ? { tlaSteps: 1, actions: [tla] } : null;
  }
  const server = 'envelope' in action ? action.envelope.to : action.server;
  assert(server >= 0 && server < raft.bounds.servers, `refinement: no server ${server}`);
  const exact = searchSequence(raft, from, target, action, server);
  if (exact !== null) return exact;
  const departure = deviationOf(raft, before, action, after);
  if (departure === null) return null;
  const servers = abstractAfter.servers.slice();
  servers[departure.server * raft.width + commitIndexOffset] = departure.commitIndex;
  if (departure.log !== undefined) servers[departure.server * raft.width + 3] = departure.log;
  const lowered = keyOf({ ...abstractAfter, servers });
  const mapped = searchSequence(raft, from, lowered, action, server);
  return mapped === null ? null : { ...mapped, deviation: departure.deviation };
}

function searchSequence(
  raft: TlaRaft,
  from: TlaState,
  target: string,
  action: RaftAction,
  server: number,
): StepMapping | null {
  assert(target !== keyOf(from), 'a stuttering step needs no search');
  let level: { state: TlaState; actions: readonly TlaAction[] }[] = [{ state: from, actions: [] }];
  const seen = new Set<string>([keyOf(from)]);
  for (let depth = 1; depth <= maxTlaSteps && level.length > 0; depth++) {
    const upcoming: typeof level = [];
    for (const { state, actions } of level) {
      for (const tla of candidateActions(raft, state, action, server)) {
        const next = stepTla(raft, state, tla);
        if (next === null) continue;
        const normalised = normalise(raft, next);
        const key = keyOf(normalised);
        if (key === target) return { tlaSteps: depth, actions: [...actions, tla] };
        if (seen.has(key)) continue;
        seen.add(key);
        upcoming.push({ state: normalised, actions: [...actions, tla] });
      }
    }
    level = upcoming;
  }
  return null;
}
