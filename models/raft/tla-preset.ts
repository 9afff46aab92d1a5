/**
 * `check raft --preset raft.tla`: Ongaro's raft.tla (github ongardie/raft.tla, the version
 * with the proof-only history variables) transcribed action for action, to calibrate the
 * checker against TLC. Same actions at the same granularity (Restart, Timeout,
 * RequestVote(i, j), BecomeLeader, ClientRequest(i, v), AdvanceCommitIndex, AppendEntries(i, j)
 * with at most one entry, Receive with UpdateTerm / DropStaleResponse / the four handlers,
 * DuplicateMessage, DropMessage), the same variables including the history variables
 * `elections`, `allLogs`, `voterLog` and the `mlog` fields of messages (they change what counts
 * as a distinct state), and TLC's state constraint:
 *
 *   \A i : currentTerm[i] <= MaxTerm /\ Len(log[i]) <= MaxLogLen, and the bag holds at most
 *   MaxMsgs copies in all.
 *
 * One reading is needed: raft.tla's WithoutMessage leaves a message whose count reaches 0 in
 * DOMAIN messages, from where it could be received (or dropped) again, driving counts below
 * zero without bound. Here the last copy leaves the bag, the reading TLC's counts agree with.
 *
 * The state layout is in tla-state.ts. This model is for calibration only: the step function
 * of step.ts is what the `raft` model and the runtime call.
 */
import type { Model } from '../../checker/model.js';
import type { WordReader, WordWriter } from '../../checker/words.js';
import { assert } from '../../spec/assert.js';
import {
  absent,
  appendCommitIndex,
  appendEntriesRequest,
  appendEntriesResponse,
  appendEntry,
  appendEntryOf,
  appendLog,
  appendPrevLogIndex,
  appendPrevLogTerm,
  candidate,
  commitIndexOffset,
  dropLastEntry,
  entryOf,
  entryTerm,
  follower,
  lastTerm,
  leader,
  logEntry,
  logLength,
  logOffset,
  matchIndexOffset,
  maximumLogLength,
  maximumServers,
  maximumTerm,
  maximumValues,
  messageDestination,
  messageLow,
  messagePayload,
  messageSource,
  messageTerm,
  messageType,
  nextIndexOffset,
  nil,
  requestLastLogIndex,
  requestLastLogTerm,
  requestVoteRequest,
  requestVoteResponse,
  roleOffset,
  stride,
  termOffset,
  totalCopies,
  votedForOffset,
  voterLogOffset,
  votesGrantedOffset,
  votesRespondedOffset,
  withElection,
  withLogs,
  withMessage,
  withoutMessage,
  type TlaState,
} from './tla-state.js';
import { tlaInvariants } from './tla-invariants.js';
import { printedMessageRecord, tlaVariables } from './tla-variables.js';
import { serverName, valueName } from './printing.js';

export interface TlaBounds {
  readonly servers: number;
  readonly values: number;
  readonly maxTerm: number;
  readonly maxLog: number;
  readonly maxMsgs: number;
}

export type TlaAction =
  | {
      readonly type: 'Restart' | 'Timeout' | 'BecomeLeader' | 'AdvanceCommitIndex';
      readonly i: number;
    }
  | { readonly type: 'RequestVote' | 'AppendEntries'; readonly i: number; readonly j: number }
  | { readonly type: 'ClientRequest'; readonly i: number; readonly v: number }
  | {
      readonly type: 'Receive' | 'DuplicateMessage' | 'DropMessage';
      readonly low: number;
      readonly high: number;
    };

/** A step's successor (allLogs included: see `successor`). */
type Successor = TlaState;

export class TlaRaft {
  readonly width: number;
  readonly quorumSize: number;
  /**
   * allLogs' = allLogs \cup {log[i] : i \in Server} is the same for every successor of a state:
   * `next` sets it once per expanded state, and each step's successor takes it.
   */
  allLogsNext: readonly number[] = [];

  constructor(readonly bounds: TlaBounds) {
    const { servers, values, maxTerm, maxLog } = bounds;
    assert(
      servers >= 1 && servers <= maximumServers,
      `raft.tla preset: 1..${maximumServers} servers`,
    );
    assert(values >= 1 && values <= maximumValues, `raft.tla preset: 1..${maximumValues} values`);
    assert(maxTerm >= 1 && maxTerm <= maximumTerm, `raft.tla preset: max term 1..${maximumTerm}`);
    assert(
      maxLog >= 0 && maxLog <= maximumLogLength,
      `raft.tla preset: max log 0..${maximumLogLength}`,
    );
    this.width = stride(servers);
    this.quorumSize = Math.floor(servers / 2) + 1;
  }

  /** The successor of a step: its variables, and the allLogs shared by every successor. */
  private successor(
    servers: readonly number[],
    messages: readonly number[],
    elections: readonly Int32Array[],
  ): TlaState {
    return { servers, messages, elections, allLogs: this.allLogsNext };
  }

  initialState(): TlaState {
    const { servers } = this.bounds;
    const words: number[] = Array<number>(servers * this.width).fill(0);
    for (let i = 0; i < servers; i++) {
      const base = i * this.width;
      words[base + termOffset] = 1;
      words[base + roleOffset] = follower;
      words[base + votedForOffset] = nil;
      for (let j = 0; j < servers; j++) {
        words[base + nextIndexOffset + j] = 1;
        words[base + voterLogOffset(servers) + j] = absent;
      }
    }
    return {
      servers: words,
      messages: [],
      elections: [],
      allLogs: [],
    };
  }

  private field(state: { servers: readonly number[] }, i: number, offset: number): number {
    return state.servers[i * this.width + offset]!;
  }

  /** Server i restarts from stable storage: only currentTerm, votedFor and log survive. */
  restart(state: TlaState, i: number): Successor {
    const { servers: count } = this.bounds;
    const base = i * this.width;
    if (this.isRestarted(state.servers, base)) {
      // A stuttering step (TLC still generates it): nothing to copy.
      return this.successor(state.servers, state.messages, state.elections);
    }
    const servers = state.servers.slice();
    servers[base + roleOffset] = follower;
    servers[base + votesRespondedOffset] = 0;
    servers[base + votesGrantedOffset] = 0;
    for (let j = 0; j < count; j++) {
      servers[base + voterLogOffset(count) + j] = absent;
      servers[base + nextIndexOffset + j] = 1;
      servers[base + matchIndexOffset(count) + j] = 0;
    }
    servers[base + commitIndexOffset] = 0;
    return this.successor(servers, state.messages, state.elections);
  }

  /** Whether the server at `base` holds only what Restart leaves. */
  private isRestarted(servers: readonly number[], base: number): boolean {
    const count = this.bounds.servers;
    if (servers[base + roleOffset] !== follower || servers[base + commitIndexOffset] !== 0)
      return false;
    if (servers[base + votesRespondedOffset] !== 0 || servers[base + votesGrantedOffset] !== 0)
      return false;
    for (let j = 0; j < count; j++) {
      if (servers[base + voterLogOffset(count) + j] !== absent) return false;
      if (servers[base + nextIndexOffset + j] !== 1) return false;
      if (servers[base + matchIndexOffset(count) + j] !== 0) return false;
    }
    return true;
  }

  /** Server i times out and starts a new election (it votes for itself by message). */
  timeout(state: TlaState, i: number): Successor | null {
    if (this.field(state, i, roleOffset) === leader) return null;
    const count = this.bounds.servers;
    const servers = state.servers.slice();
    const base = i * this.width;
    servers[base + roleOffset] = candidate;
    servers[base + termOffset]!++;
    servers[base + votedForOffset] = nil;
    servers[base + votesRespondedOffset] = 0;
    servers[base + votesGrantedOffset] = 0;
    for (let j = 0; j < count; j++) servers[base + voterLogOffset(count) + j] = absent;
    return this.successor(servers, state.messages, state.elections);
  }

  /** Candidate i sends j a RequestVote request (j = i included, as in raft.tla). */
  requestVote(state: TlaState, i: number, j: number): Successor | null {
    if (this.field(state, i, roleOffset) !== candidate) return null;
    if ((this.field(state, i, votesRespondedOffset) & (1 << j)) !== 0) return null;
    const log = this.field(state, i, logOffset);
    const payload = lastTerm(log) | (logLength(log) << 5);
    const low = messageLow(requestVoteRequest, this.field(state, i, termOffset), i, j, payload);
    return this.successor(state.servers, withMessage(state.messages, low, 0), state.elections);
  }

  /** Leader i sends j an AppendEntries request with at most one entry. */
  appendEntries(state: TlaState, i: number, j: number): Successor | null {
    if (i === j || this.field(state, i, roleOffset) !== leader) return null;
    const log = this.field(state, i, logOffset);
    const length = logLength(log);
    const nextIndex = this.field(state, i, nextIndexOffset + j);
    const prevLogIndex = nextIndex - 1;
    assert(prevLogIndex <= length, 'nextIndex beyond the end of the leader log');
    const prevLogTerm = prevLogIndex > 0 ? entryTerm(logEntry(log, prevLogIndex)) : 0;
    const lastEntry = Math.min(length, nextIndex);
    const entry = nextIndex <= lastEntry ? logEntry(log, nextIndex) : 0;
    const commitIndex = Math.min(this.field(state, i, commitIndexOffset), lastEntry);
    const payload = prevLogIndex | (prevLogTerm << 3) | (entry << 8);
    const low = messageLow(appendEntriesRequest, this.field(state, i, termOffset), i, j, payload);
    const high = log | (commitIndex << 24);
    return this.successor(state.servers, withMessage(state.messages, low, high), state.elections);
  }

  /** Candidate i becomes leader once a quorum has granted it a vote. */
  becomeLeader(state: TlaState, i: number): Successor | null {
    if (this.field(state, i, roleOffset) !== candidate) return null;
    const granted = this.field(state, i, votesGrantedOffset);
    if (popCount(granted) < this.quorumSize) return null;
    const count = this.bounds.servers;
    const servers = state.servers.slice();
    const base = i * this.width;
    const log = servers[base + logOffset]!;
    servers[base + roleOffset] = leader;
    for (let j = 0; j < count; j++) {
      servers[base + nextIndexOffset + j] = logLength(log) + 1;
      servers[base + matchIndexOffset(count) + j] = 0;
    }
    const election = new Int32Array(2 + count);
    election[0] = servers[base + termOffset]! | (i << 5) | (granted << 8);
    election[1] = log;
    for (let j = 0; j < count; j++) election[2 + j] = servers[base + voterLogOffset(count) + j]!;
    return this.successor(servers, state.messages, withElection(state.elections, election));
  }

  /** Leader i appends value v to its log. */
  clientRequest(state: TlaState, i: number, v: number): Successor | null {
    if (this.field(state, i, roleOffset) !== leader) return null;
    const servers = state.servers.slice();
    const base = i * this.width;
    servers[base + logOffset] = appendEntry(
      servers[base + logOffset]!,
      entryOf(servers[base + termOffset]!, v),
    );
    return this.successor(servers, state.messages, state.elections);
  }

  /** Leader i commits the highest index a quorum agrees on, if it is of its own term. */
  advanceCommitIndex(state: TlaState, i: number): Successor | null {
    if (this.field(state, i, roleOffset) !== leader) return null;
    const count = this.bounds.servers;
    const base = i * this.width;
    const log = state.servers[base + logOffset]!;
    let agreeIndex = 0;
    for (let index = logLength(log); index >= 1 && agreeIndex === 0; index--) {
      let agree = 1;
      for (let k = 0; k < count; k++) {
        if (k !== i && state.servers[base + matchIndexOffset(count) + k]! >= index) agree++;
      }
      if (agree >= this.quorumSize) agreeIndex = index;
    }
    const term = state.servers[base + termOffset]!;
    if (agreeIndex === 0 || entryTerm(logEntry(log, agreeIndex)) !== term) {
      return this.successor(state.servers, state.messages, state.elections);
    }
    const servers = state.servers.slice();
    servers[base + commitIndexOffset] = agreeIndex;
    return this.successor(servers, state.messages, state.elections);
  }

  /** Receive(m): UpdateTerm, or the handler for m's type, or DropStaleResponse. */
  receive(state: TlaState, low: number, high: number): Successor | null {
    const i = messageDestination(low);
    const j = messageSource(low);
    const messageTermValue = messageTerm(low);
    const term = this.field(state, i, termOffset);
    if (messageTermValue > term) return this.updateTerm(state, i, messageTermValue);
    switch (messageType(low)) {
      case requestVoteRequest:
        return this.handleRequestVoteRequest(state, i, j, low);
      case requestVoteResponse:
        if (messageTermValue < term) return this.dropStaleResponse(state, low, high);
        return this.handleRequestVoteResponse(state, i, j, low, high);
      case appendEntriesRequest:
        return this.handleAppendEntriesRequest(state, i, j, low, high);
      default:
        if (messageTermValue < term) return this.dropStaleResponse(state, low, high);
        return this.handleAppendEntriesResponse(state, i, j, low);
    }
  }

  /** Any message with a newer term makes the recipient a follower of that term first. */
  private updateTerm(state: TlaState, i: number, term: number): Successor {
    const servers = state.servers.slice();
    const base = i * this.width;
    servers[base + termOffset] = term;
    servers[base + roleOffset] = follower;
    servers[base + votedForOffset] = nil;
    return this.successor(servers, state.messages, state.elections);
  }

  private dropStaleResponse(state: TlaState, low: number, high: number): Successor {
    return this.successor(
      state.servers,
      withoutMessage(state.messages, low, high),
      state.elections,
    );
  }

  private handleRequestVoteRequest(state: TlaState, i: number, j: number, low: number): Successor {
    const base = i * this.width;
    const log = state.servers[base + logOffset]!;
    const payload = messagePayload(low);
    const candidateLastTerm = requestLastLogTerm(payload);
    const ownLastTerm = lastTerm(log);
    const logOk =
      candidateLastTerm > ownLastTerm ||
      (candidateLastTerm === ownLastTerm && requestLastLogIndex(payload) >= logLength(log));
    const term = state.servers[base + termOffset]!;
    const votedFor = state.servers[base + votedForOffset]!;
    const grant = messageTerm(low) === term && logOk && (votedFor === nil || votedFor === j);
    let servers = state.servers;
    if (grant && votedFor !== j) {
      const voted = servers.slice();
      voted[base + votedForOffset] = j;
      servers = voted;
    }
    const response = messageLow(requestVoteResponse, term, i, j, grant ? 1 : 0);
    const messages = withoutMessage(withMessage(state.messages, response, log), low, 0);
    return this.successor(servers, messages, state.elections);
  }

  private handleRequestVoteResponse(
    state: TlaState,
    i: number,
    j: number,
    low: number,
    high: number,
  ): Successor {
    const count = this.bounds.servers;
    const servers = state.servers.slice();
    const base = i * this.width;
    servers[base + votesRespondedOffset]! |= 1 << j;
    if (messagePayload(low) === 1) {
      servers[base + votesGrantedOffset]! |= 1 << j;
      // voterLog[i] @@ (j :> m.mlog): @@ keeps the value already there.
      if (servers[base + voterLogOffset(count) + j] === absent) {
        servers[base + voterLogOffset(count) + j] = high;
      }
    }
    return this.successor(servers, withoutMessage(state.messages, low, high), state.elections);
  }

  private handleAppendEntriesRequest(
    state: TlaState,
    i: number,
    j: number,
    low: number,
    high: number,
  ): Successor | null {
    const base = i * this.width;
    const term = state.servers[base + termOffset]!;
    const role = state.servers[base + roleOffset]!;
    const log = state.servers[base + logOffset]!;
    const length = logLength(log);
    const payload = messagePayload(low);
    const prevLogIndex = appendPrevLogIndex(payload);
    const logOk =
      prevLogIndex === 0 ||
      (prevLogIndex <= length &&
        appendPrevLogTerm(payload) === entryTerm(logEntry(log, prevLogIndex)));
    const requestTerm = messageTerm(low);
    if (requestTerm < term || (role === follower && !logOk)) {
      const response = messageLow(appendEntriesResponse, term, i, j, 0);
      const messages = withoutMessage(withMessage(state.messages, response, 0), low, high);
      return this.successor(state.servers, messages, state.elections);
    }
    if (role === candidate) {
      const servers = state.servers.slice();
      servers[base + roleOffset] = follower;
      return this.successor(servers, state.messages, state.elections);
    }
    if (role !== follower) return null;
    const index = prevLogIndex + 1;
    const entry = appendEntryOf(payload);
    if (entry === 0 || (length >= index && entryTerm(logEntry(log, index)) === entryTerm(entry))) {
      const servers = state.servers.slice();
      servers[base + commitIndexOffset] = appendCommitIndex(high);
      const matchIndex = prevLogIndex + (entry === 0 ? 0 : 1);
      const response = messageLow(appendEntriesResponse, term, i, j, 1 | (matchIndex << 1));
      const messages = withoutMessage(withMessage(state.messages, response, 0), low, high);
      return this.successor(servers, messages, state.elections);
    }
    if (length >= index) {
      // Conflict: remove one entry (the last one, exactly as raft.tla does).
      const servers = state.servers.slice();
      servers[base + logOffset] = dropLastEntry(log);
      return this.successor(servers, state.messages, state.elections);
    }
    if (length === prevLogIndex) {
      const servers = state.servers.slice();
      servers[base + logOffset] = appendEntry(log, entry);
      return this.successor(servers, state.messages, state.elections);
    }
    return null;
  }

  private handleAppendEntriesResponse(
    state: TlaState,
    i: number,
    j: number,
    low: number,
  ): Successor {
    const count = this.bounds.servers;
    const servers = state.servers.slice();
    const base = i * this.width;
    const payload = messagePayload(low);
    if ((payload & 1) === 1) {
      const matchIndex = payload >>> 1;
      servers[base + nextIndexOffset + j] = matchIndex + 1;
      servers[base + matchIndexOffset(count) + j] = matchIndex;
    } else {
      servers[base + nextIndexOffset + j] = Math.max(servers[base + nextIndexOffset + j]! - 1, 1);
    }
    return this.successor(servers, withoutMessage(state.messages, low, 0), state.elections);
  }

  duplicateMessage(state: TlaState, low: number, high: number): Successor {
    return this.successor(state.servers, withMessage(state.messages, low, high), state.elections);
  }

  dropMessage(state: TlaState, low: number, high: number): Successor {
    return this.successor(
      state.servers,
      withoutMessage(state.messages, low, high),
      state.elections,
    );
  }

  withinBounds(state: TlaState): boolean {
    const { servers: count, maxTerm, maxLog, maxMsgs } = this.bounds;
    for (let i = 0; i < count; i++) {
      const base = i * this.width;
      if (state.servers[base + termOffset]! > maxTerm) return false;
      if (logLength(state.servers[base + logOffset]!) > maxLog) return false;
    }
    return totalCopies(state.messages) <= maxMsgs;
  }
}

function popCount(mask: number): number {
  let count = 0;
  for (let bits = mask; bits !== 0; bits &= bits - 1) count++;
  return count;
}

// ---- the checker's view ----

/** Copies words one by one: for arrays this short it beats `set` on a subarray view. */
function pushAll(out: WordWriter, words: ArrayLike<number>): void {
  for (let index = 0; index < words.length; index++) out.push(words[index]!);
}

function encode(state: TlaState, out: WordWriter): void {
  pushAll(out, state.servers);
  out.push(state.messages.length);
  pushAll(out, state.messages);
  out.push(state.elections.length);
  for (const election of state.elections) pushAll(out, election);
  out.push(state.allLogs.length);
  pushAll(out, state.allLogs);
}

function readNumbers(input: WordReader, length: number): number[] {
  const numbers: number[] = [];
  for (let index = 0; index < length; index++) numbers.push(input.next());
  return numbers;
}

function decoder(raft: TlaRaft) {
  const serverWords = raft.bounds.servers * raft.width;
  const electionWords = 2 + raft.bounds.servers;
  const take = (input: WordReader, length: number) => {
    const words = input.words.slice(input.position, input.position + length);
    input.position += length;
    return words;
  };
  return (input: WordReader): TlaState => {
    const servers: number[] = [];
    for (let index = 0; index < serverWords; index++) servers.push(input.next());
    const messages = readNumbers(input, input.next());
    const electionCount = input.next();
    const elections: Int32Array[] = [];
    for (let index = 0; index < electionCount; index++) elections.push(take(input, electionWords));
    const allLogs = readNumbers(input, input.next());
    return { servers, messages, elections, allLogs };
  };
}

export function tlaLabel(action: TlaAction): string {
  switch (action.type) {
    case 'RequestVote':
    case 'AppendEntries':
      return `${action.type}(${serverName(action.i)}, ${serverName(action.j)})`;
    case 'ClientRequest':
      return `ClientRequest(${serverName(action.i)}, ${valueName(action.v)})`;
    case 'Receive':
    case 'DuplicateMessage':
    case 'DropMessage':
      return `${action.type}(${JSON.stringify(printedMessageRecord(action.low, action.high))})`;
    default:
      return `${action.type}(${serverName(action.i)})`;
  }
}

function staticActions(bounds: TlaBounds): TlaAction[] {
  const { servers, values } = bounds;
  const actions: TlaAction[] = [];
  for (let i = 0; i < servers; i++) actions.push({ type: 'Restart', i });
  for (let i = 0; i < servers; i++) actions.push({ type: 'Timeout', i });
  for (let i = 0; i < servers; i++) {
    for (let j = 0; j < servers; j++) actions.push({ type: 'RequestVote', i, j });
  }
  for (let i = 0; i < servers; i++) actions.push({ type: 'BecomeLeader', i });
  for (let i = 0; i < servers; i++) {
    for (let v = 0; v < values; v++) actions.push({ type: 'ClientRequest', i, v });
  }
  for (let i = 0; i < servers; i++) actions.push({ type: 'AdvanceCommitIndex', i });
  for (let i = 0; i < servers; i++) {
    for (let j = 0; j < servers; j++) if (i !== j) actions.push({ type: 'AppendEntries', i, j });
  }
  return actions;
}

/** One raft.tla action, without the allLogs update that every step shares. */
export function stepTla(raft: TlaRaft, state: TlaState, action: TlaAction): Successor | null {
  switch (action.type) {
    case 'Restart':
      return raft.restart(state, action.i);
    case 'Timeout':
      return raft.timeout(state, action.i);
    case 'RequestVote':
      return raft.requestVote(state, action.i, action.j);
    case 'BecomeLeader':
      return raft.becomeLeader(state, action.i);
    case 'ClientRequest':
      return raft.clientRequest(state, action.i, action.v);
    case 'AdvanceCommitIndex':
      return raft.advanceCommitIndex(state, action.i);
    case 'AppendEntries':
      return raft.appendEntries(state, action.i, action.j);
    case 'Receive':
      return raft.receive(state, action.low, action.high);
    case 'DuplicateMessage':
      return raft.duplicateMessage(state, action.low, action.high);
    case 'DropMessage':
      return raft.dropMessage(state, action.low, action.high);
  }
}

/** The raft.tla preset as a checker model. */
export function createTlaModel(bounds: TlaBounds): Model<TlaState, TlaAction> {
  const raft = new TlaRaft(bounds);
  const fixed = staticActions(bounds);
  // Message actions are values; one object per message and kind keeps `actions` cheap.
  const messageActions = new Map<number, Map<number, TlaAction[]>>();
  const actionsOf = (low: number, high: number): TlaAction[] => {
    let byHigh = messageActions.get(low);
    if (!byHigh) messageActions.set(low, (byHigh = new Map()));
    let triple = byHigh.get(high);
    if (!triple) {
      triple = (['Receive', 'DuplicateMessage', 'DropMessage'] as const).map((type) => ({
        type,
        low,
        high,
      }));
      byHigh.set(high, triple);
    }
    return triple;
  };
  let allLogsFrom: TlaState | undefined;
  return {
    name: 'raft',
    initialStates: () => [raft.initialState()],
    actions: (state) => {
      const { messages } = state;
      if (messages.length === 0) return fixed;
      const actions = fixed.slice();
      for (let at = 0; at < messages.length; at += 3) {
        actions.push(...actionsOf(messages[at]!, messages[at + 1]!));
      }
      return actions;
    },
    next: (state, action) => {
      if (allLogsFrom !== state) {
        allLogsFrom = state;
        raft.allLogsNext = withLogs(state.allLogs, state.servers, bounds.servers);
      }
      return stepTla(raft, state, action);
    },
    label: tlaLabel,
    invariants: tlaInvariants(raft),
    withinBounds: (state) => raft.withinBounds(state),
    codec: { encode, decode: decoder(raft) },
    variables: (state) => tlaVariables(raft, state),
  };
}
