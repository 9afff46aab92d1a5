/**
 * The state of Ongaro's raft.tla (the version with its proof-only history variables), packed
 * for speed: the `--preset raft.tla` calibration model explores 28 million successors, so a
 * state is four typed arrays instead of nested records, and logs and messages are integers.
 *
 * - A log entry is one byte, `term * 8 + value` (term >= 1, so an entry is never 0); a log is
 *   up to four entries, little end first, in one 32-bit integer (0 is the empty log).
 * - A message is two words (`low`, `high`): its type, term, source, destination and payload in
 *   `low`, the proof-only `mlog` (and an AppendEntries request's commit index) in `high`.
 * - `messages` is raft.tla's bag: sorted (low, high, count) triples.
 * - `elections` (proof-only) is a sorted set of records, each `[eterm | eleader << 5 |
 *   evotes << 8, elog, evoterLog[0..N-1]]`; `allLogs` (proof-only) a sorted set of logs.
 * - Per server, `servers` holds `stride(N)` words: see the offsets below. voterLog (proof-only)
 *   holds -1 for a voter outside its domain.
 */
import { assert } from '../../spec/assert.js';

export interface TlaState {
  /** Per-server words: a plain array of small integers clones faster than a typed array. */
  readonly servers: readonly number[];
  readonly messages: readonly number[];
  readonly elections: readonly Int32Array[];
  readonly allLogs: readonly number[];
}

export const follower = 0;
export const candidate = 1;
export const leader = 2;
export const roleNames = ['Follower', 'Candidate', 'Leader'] as const;
/** votedFor = Nil. */
export const nil = -1;
/** A voter outside voterLog's domain. */
export const absent = -1;

export const termOffset = 0;
export const roleOffset = 1;
export const votedForOffset = 2;
export const logOffset = 3;
export const commitIndexOffset = 4;
export const votesRespondedOffset = 5;
export const votesGrantedOffset = 6;
export const nextIndexOffset = 7;
export const matchIndexOffset = (servers: number) => 7 + servers;
export const voterLogOffset = (servers: number) => 7 + 2 * servers;
export const stride = (servers: number) => 7 + 3 * servers;

export const maximumServers = 5;
export const maximumLogLength = 3;
export const maximumTerm = 20;
export const maximumValues = 8;

// ---- logs ----

export function entryOf(term: number, value: number): number {
  return term * 8 + value;
}

export const entryTerm = (entry: number) => entry >>> 3;
export const entryValue = (entry: number) => entry & 7;

export function logLength(log: number): number {
  if (log === 0) return 0;
  if ((log & ~0xff) === 0) return 1;
  if ((log & ~0xffff) === 0) return 2;
  if ((log & ~0xffffff) === 0) return 3;
  return 4;
}

/** The entry at 1-based `index` (raft.tla's log[i][index]). */
export function logEntry(log: number, index: number): number {
  return (log >>> (8 * (index - 1))) & 0xff;
}

export function lastTerm(log: number): number {
  const length = logLength(log);
  return length === 0 ? 0 : entryTerm(logEntry(log, length));
}

export function appendEntry(log: number, entry: number): number {
  const length = logLength(log);
  assert(length < 4 && entry > 0 && entry < 256, 'a packed log holds at most four entries');
  return log | (entry << (8 * length));
}

/** The log without its last entry. */
export function dropLastEntry(log: number): number {
  const length = logLength(log);
  assert(length > 0, 'cannot drop an entry of an empty log');
  return length === 1 ? 0 : log & ((1 << (8 * (length - 1))) - 1);
}

export function logToArray(log: number): { term: number; value: number }[] {
  const entries = [];
  for (let index = 1; index <= logLength(log); index++) {
    const entry = logEntry(log, index);
    entries.push({ term: entryTerm(entry), value: entryValue(entry) });
  }
  return entries;
}

// ---- messages ----

export const requestVoteRequest = 0;
export const requestVoteResponse = 1;
export const appendEntriesRequest = 2;
export const appendEntriesResponse = 3;
export const messageTypeNames = [
  'RequestVoteRequest',
  'RequestVoteResponse',
  'AppendEntriesRequest',
  'AppendEntriesResponse',
] as const;

export const messageType = (low: number) => low & 3;
export const messageTerm = (low: number) => (low >>> 2) & 31;
export const messageSource = (low: number) => (low >>> 7) & 7;
export const messageDestination = (low: number) => (low >>> 10) & 7;
/** The type-specific fields, 19 bits. */
export const messagePayload = (low: number) => low >>> 13;

export function messageLow(
  type: number,
  term: number,
  source: number,
  destination: number,
  payload: number,
): number {
  return type | (term << 2) | (source << 7) | (destination << 10) | (payload << 13);
}

// RequestVoteRequest payload: mlastLogTerm | mlastLogIndex << 5.
export const requestLastLogTerm = (payload: number) => payload & 31;
export const requestLastLogIndex = (payload: number) => payload >>> 5;
// RequestVoteResponse payload: mvoteGranted; high: mlog.
// AppendEntriesRequest payload: mprevLogIndex | mprevLogTerm << 3 | entry << 8 (0: no entry);
// high: mlog | mcommitIndex << 24.
export const appendPrevLogIndex = (payload: number) => payload & 7;
export const appendPrevLogTerm = (payload: number) => (payload >>> 3) & 31;
export const appendEntryOf = (payload: number) => (payload >>> 8) & 0xff;
export const appendCommitIndex = (high: number) => high >>> 24;
export const appendLog = (high: number) => high & 0xffffff;
// AppendEntriesResponse payload: msuccess | mmatchIndex << 1.

/** The message as raft.tla's record, for traces and labels. */
export function messageRecord(low: number, high: number): Record<string, unknown> {
  const type = messageType(low);
  const payload = messagePayload(low);
  const record: Record<string, unknown> = {
    mtype: messageTypeNames[type],
    mterm: messageTerm(low),
  };
  switch (type) {
    case requestVoteRequest:
      record['mlastLogTerm'] = requestLastLogTerm(payload);
      record['mlastLogIndex'] = requestLastLogIndex(payload);
      break;
    case requestVoteResponse:
      record['mvoteGranted'] = payload === 1;
      record['mlog'] = logToArray(high);
      break;
    case appendEntriesRequest: {
      const entry = appendEntryOf(payload);
      record['mprevLogIndex'] = appendPrevLogIndex(payload);
      record['mprevLogTerm'] = appendPrevLogTerm(payload);
      record['mentries'] = entry === 0 ? [] : logToArray(entry);
      record['mlog'] = logToArray(appendLog(high));
      record['mcommitIndex'] = appendCommitIndex(high);
      break;
    }
    default:
      record['msuccess'] = (payload & 1) === 1;
      record['mmatchIndex'] = payload >>> 1;
  }
  record['msource'] = messageSource(low);
  record['mdest'] = messageDestination(low);
  return record;
}

// ---- the bag ----

/** Index of the triple for (low, high), or -(insertion point) - 1. */
export function findMessage(messages: readonly number[], low: number, high: number): number {
  let start = 0;
  let end = messages.length / 3;
  while (start < end) {
    const middle = (start + end) >>> 1;
    const otherLow = messages[middle * 3]!;
    const otherHigh = messages[middle * 3 + 1]!;
    if (otherLow < low || (otherLow === low && otherHigh < high)) start = middle + 1;
    else if (otherLow === low && otherHigh === high) return middle;
    else end = middle;
  }
  return -start - 1;
}

/** raft.tla's WithMessage: one more copy. */
export function withMessage(messages: readonly number[], low: number, high: number): number[] {
  const found = findMessage(messages, low, high);
  if (found >= 0) {
    const copy = messages.slice();
    copy[found * 3 + 2]!++;
    return copy;
  }
  const at = (-found - 1) * 3;
  return withTriple(messages, at, low, high);
}

/**
 * raft.tla's WithoutMessage: one copy fewer. The last copy leaves the bag's domain, so a
 * received message cannot be received again (see the model's doc comment on this choice).
 */
export function withoutMessage(
  messages: readonly number[],
  low: number,
  high: number,
): readonly number[] {
  const found = findMessage(messages, low, high);
  if (found < 0) return messages;
  const at = found * 3;
  if (messages[at + 2]! === 1) return withoutTriple(messages, at);
  const copy = messages.slice();
  copy[at + 2]!--;
  return copy;
}

// The bag with a triple inserted or removed, built by pushes: a slice and a splice allocate
// three arrays (a splice returns what it removed), and the bag changes in most successors.

function withTriple(messages: readonly number[], at: number, low: number, high: number): number[] {
  const copy: number[] = [];
  for (let index = 0; index < at; index++) copy.push(messages[index]!);
  copy.push(low, high, 1);
  for (let index = at; index < messages.length; index++) copy.push(messages[index]!);
  return copy;
}

function withoutTriple(messages: readonly number[], at: number): number[] {
  const copy: number[] = [];
  for (let index = 0; index < at; index++) copy.push(messages[index]!);
  for (let index = at + 3; index < messages.length; index++) copy.push(messages[index]!);
  return copy;
}

export function totalCopies(messages: readonly number[]): number {
  let total = 0;
  for (let at = 2; at < messages.length; at += 3) total += messages[at]!;
  return total;
}

// ---- sets ----

function compareWords(a: Int32Array, b: Int32Array): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    if (a[index] !== b[index]) return a[index]! < b[index]! ? -1 : 1;
  }
  return a.length - b.length;
}

/** The set with one more record (unchanged when it is there already). */
export function withElection(
  elections: readonly Int32Array[],
  election: Int32Array,
): readonly Int32Array[] {
  let at = 0;
  while (at < elections.length) {
    const order = compareWords(elections[at]!, election);
    if (order === 0) return elections;
    if (order > 0) break;
    at++;
  }
  return [...elections.slice(0, at), election, ...elections.slice(at)];
}

/** allLogs with the logs of `servers` added (the same array when none is new). */
export function withLogs(
  allLogs: readonly number[],
  servers: readonly number[],
  count: number,
): readonly number[] {
  const width = stride(count);
  let result = allLogs;
  for (let server = 0; server < count; server++) {
    const log = servers[server * width + logOffset]!;
    let at = 0;
    while (at < result.length && result[at]! < log) at++;
    if (at < result.length && result[at] === log) continue;
    const grown = result.slice();
    grown.splice(at, 0, log);
    result = grown;
  }
  return result;
}
