/**
 * The `raft` model's hand codec (32-bit words, no strings) and its symmetric view: with
 * `--symmetry`, the fingerprinted view is the least encoding over all renamings of the
 * servers, so states that differ only in server names count once.
 */
import type { StateCodec } from '../../checker/model.js';
import { WordWriter, type WordReader } from '../../checker/words.js';
import type { CommitRecord, RaftBounds, RaftModelState } from './model-state.js';
import { envelopeKey, type Bag, type InFlight } from './network.js';
import type { Entry, HardState, Message, RaftServer, Role, Snapshot } from './types.js';

const roles: readonly Role[] = ['follower', 'candidate', 'leader'];
const messageTypes: readonly Message['type'][] = [
  'RequestVoteRequest',
  'RequestVoteResponse',
  'AppendEntriesRequest',
  'AppendEntriesResponse',
  'InstallSnapshotRequest',
  'InstallSnapshotResponse',
];

function writeSnapshot(snapshot: Snapshot, out: WordWriter): void {
  out.push(snapshot.lastIncludedIndex);
  out.push(snapshot.lastIncludedTerm);
  for (const value of snapshot.values) out.push(value);
}

function readSnapshot(input: WordReader): Snapshot {
  const lastIncludedIndex = input.next();
  const lastIncludedTerm = input.next();
  const values: number[] = [];
  for (let index = 0; index < lastIncludedIndex; index++) values.push(input.next());
  return { lastIncludedIndex, lastIncludedTerm, values };
}

function writeEntries(entries: readonly Entry[], out: WordWriter): void {
  out.push(entries.length);
  for (const entry of entries) out.push((entry.term << 8) | entry.value);
}

function readEntries(input: WordReader): Entry[] {
  const entries: Entry[] = [];
  const length = input.next();
  for (let index = 0; index < length; index++) {
    const word = input.next();
    entries.push({ term: word >>> 8, value: word & 0xff });
  }
  return entries;
}

function writeHardState(state: HardState, out: WordWriter): void {
  out.push(state.currentTerm);
  out.push(state.votedFor === null ? 0 : state.votedFor + 1);
  writeSnapshot(state.snapshot, out);
  writeEntries(state.log, out);
}

function readHardState(input: WordReader): HardState {
  const currentTerm = input.next();
  const voted = input.next();
  const snapshot = readSnapshot(input);
  return {
    currentTerm,
    votedFor: voted === 0 ? null : voted - 1,
    snapshot,
    log: readEntries(input),
  };
}

function sameEntries(a: readonly Entry[], b: readonly Entry[]): boolean {
  return (
    a === b ||
    (a.length === b.length &&
      a.every((entry, index) => entry.term === b[index]!.term && entry.value === b[index]!.value))
  );
}

function sameHardState(a: HardState, b: HardState): boolean {
  return (
    a.currentTerm === b.currentTerm &&
    a.votedFor === b.votedFor &&
    a.snapshot.lastIncludedIndex === b.snapshot.lastIncludedIndex &&
    a.snapshot.lastIncludedTerm === b.snapshot.lastIncludedTerm &&
    a.snapshot.values.every((value, index) => value === b.snapshot.values[index]) &&
    sameEntries(a.log, b.log)
  );
}

function writeMessage(message: Message, out: WordWriter): void {
  out.push(messageTypes.indexOf(message.type));
  out.push(message.term);
  switch (message.type) {
    case 'RequestVoteRequest':
      out.push(message.lastLogIndex);
      out.push(message.lastLogTerm);
      break;
    case 'RequestVoteResponse':
      out.push(message.voteGranted ? 1 : 0);
      break;
    case 'AppendEntriesRequest':
      out.push(message.prevLogIndex);
      out.push(message.prevLogTerm);
      out.push(message.leaderCommit);
      writeEntries(message.entries, out);
      break;
    case 'AppendEntriesResponse':
      out.push(message.success ? 1 : 0);
      out.push(message.matchIndex);
      break;
    case 'InstallSnapshotRequest':
      writeSnapshot(message.snapshot, out);
      break;
    case 'InstallSnapshotResponse':
      out.push(message.matchIndex);
  }
}

function readMessage(input: WordReader): Message {
  const type = messageTypes[input.next()]!;
  const term = input.next();
  switch (type) {
    case 'RequestVoteRequest':
      return { type, term, lastLogIndex: input.next(), lastLogTerm: input.next() };
    case 'RequestVoteResponse':
      return { type, term, voteGranted: input.next() === 1 };
    case 'AppendEntriesRequest': {
      const prevLogIndex = input.next();
      const prevLogTerm = input.next();
      const leaderCommit = input.next();
      return { type, term, prevLogIndex, prevLogTerm, entries: readEntries(input), leaderCommit };
    }
    case 'AppendEntriesResponse':
      return { type, term, success: input.next() === 1, matchIndex: input.next() };
    case 'InstallSnapshotRequest':
      return { type, term, snapshot: readSnapshot(input) };
    case 'InstallSnapshotResponse':
      return { type, term, matchIndex: input.next() };
  }
}

function writeServer(server: RaftServer, out: WordWriter): void {
  writeHardState(server, out);
  out.push(roles.indexOf(server.role) | (server.votesGranted << 2));
  out.push(server.commitIndex);
  for (const index of server.nextIndex) out.push(index);
  for (const index of server.matchIndex) out.push(index);
}

function readServer(input: WordReader, id: number, clusterSize: number): RaftServer {
  const hard = readHardState(input);
  const word = input.next();
  const commitIndex = input.next();
  const nextIndex: number[] = [];
  const matchIndex: number[] = [];
  for (let peer = 0; peer < clusterSize; peer++) nextIndex.push(input.next());
  for (let peer = 0; peer < clusterSize; peer++) matchIndex.push(input.next());
  return {
    id,
    clusterSize,
    ...hard,
    role: roles[word & 3]!,
    votesGranted: word >>> 2,
    commitIndex,
    nextIndex,
    matchIndex,
  };
}

export function encodeRaftState(state: RaftModelState, out: WordWriter): void {
  for (const server of state.servers) writeServer(server, out);
  state.persisted.forEach((persisted, id) => {
    if (sameHardState(persisted, state.servers[id]!)) out.push(0);
    else {
      out.push(1);
      writeHardState(persisted, out);
    }
  });
  out.push(state.messages.length);
  for (const item of state.messages) {
    out.push(item.envelope.from | (item.envelope.to << 8) | (item.count << 16));
    writeMessage(item.envelope.message, out);
  }
  out.push(state.restarts | (state.compactions << 8) | (state.leaderLogRewritten ? 1 << 16 : 0));
  out.push(state.elected.length);
  for (const mask of state.elected) out.push(mask);
  out.push(state.committed.length);
  for (const record of state.committed)
    out.push((record.term << 16) | (record.value << 8) | record.inTerm);
}

export function decodeRaftState(input: WordReader, clusterSize: number): RaftModelState {
  const servers: RaftServer[] = [];
  for (let id = 0; id < clusterSize; id++) servers.push(readServer(input, id, clusterSize));
  const persisted: HardState[] = servers.map((server) => {
    if (input.next() === 1) return readHardState(input);
    const { currentTerm, votedFor, log, snapshot } = server;
    return { currentTerm, votedFor, log, snapshot };
  });
  const messages: InFlight[] = [];
  const messageCount = input.next();
  for (let index = 0; index < messageCount; index++) {
    const word = input.next();
    const envelope = { from: word & 0xff, to: (word >>> 8) & 0xff, message: readMessage(input) };
    messages.push({ key: envelopeKey(envelope), envelope, count: word >>> 16 });
  }
  const counters = input.next();
  const elected: number[] = [];
  const electedCount = input.next();
  for (let index = 0; index < electedCount; index++) elected.push(input.next());
  const committed: CommitRecord[] = [];
  const committedCount = input.next();
  for (let index = 1; index <= committedCount; index++) {
    const word = input.next();
    committed.push({ index, term: word >>> 16, value: (word >>> 8) & 0xff, inTerm: word & 0xff });
  }
  return {
    servers,
    persisted,
    messages,
    elected,
    committed,
    restarts: counters & 0xff,
    compactions: (counters >>> 8) & 0xff,
    leaderLogRewritten: (counters & (1 << 16)) !== 0,
  };
}

export function raftCodec(bounds: RaftBounds): StateCodec<RaftModelState> {
  return { encode: encodeRaftState, decode: (input) => decodeRaftState(input, bounds.servers) };
}

// ---- symmetry ----

function permutations(count: number): number[][] {
  let all: number[][] = [[]];
  for (let size = 0; size < count; size++) {
    const grown: number[][] = [];
    for (const partial of all) {
      for (let id = 0; id < count; id++) if (!partial.includes(id)) grown.push([...partial, id]);
    }
    all = grown;
  }
  return all;
}

function renameMask(mask: number, rename: readonly number[]): number {
  let result = 0;
  for (let from = 0; from < rename.length; from++)
    if ((mask & (1 << from)) !== 0) result |= 1 << rename[from]!;
  return result;
}

const renameVote = (votedFor: number | null, rename: readonly number[]) =>
  votedFor === null ? 0 : rename[votedFor]! + 1;

/**
 * The encoding of the state with server `from` renamed `rename[from]` (`order` is the
 * inverse renaming), written without building the renamed state. Messages are written in the
 * order of their own words so that the order does not depend on the names.
 */
function writeRenamed(
  state: RaftModelState,
  rename: readonly number[],
  order: readonly number[],
  out: WordWriter,
): void {
  for (const from of order) {
    const server = state.servers[from]!;
    out.push(server.currentTerm);
    out.push(renameVote(server.votedFor, rename));
    writeSnapshot(server.snapshot, out);
    writeEntries(server.log, out);
    out.push(roles.indexOf(server.role) | (renameMask(server.votesGranted, rename) << 2));
    out.push(server.commitIndex);
    for (const peer of order) out.push(server.nextIndex[peer]!);
    for (const peer of order) out.push(server.matchIndex[peer]!);
  }
  for (const from of order) {
    const persisted = state.persisted[from]!;
    if (sameHardState(persisted, state.servers[from]!)) out.push(0);
    else {
      out.push(1);
      out.push(persisted.currentTerm);
      out.push(renameVote(persisted.votedFor, rename));
      writeSnapshot(persisted.snapshot, out);
      writeEntries(persisted.log, out);
    }
  }
  writeRenamedMessages(state.messages, rename, out);
  out.push(state.restarts | (state.compactions << 8) | (state.leaderLogRewritten ? 1 << 16 : 0));
  out.push(state.elected.length);
  for (const mask of state.elected) out.push(renameMask(mask, rename));
  out.push(state.committed.length);
  for (const record of state.committed)
    out.push((record.term << 16) | (record.value << 8) | record.inTerm);
}

const messageScratch: WordWriter[] = [];

function writeRenamedMessages(bag: Bag, rename: readonly number[], out: WordWriter): void {
  out.push(bag.length);
  while (messageScratch.length < bag.length) messageScratch.push(new WordWriter(16));
  const written = bag.map((item, index) => {
    const scratchWriter = messageScratch[index]!;
    scratchWriter.reset();
    const { from, to, message } = item.envelope;
    scratchWriter.push(rename[from]! | (rename[to]! << 8) | (item.count << 16));
    writeMessage(message, scratchWriter);
    return scratchWriter;
  });
  written.sort((a, b) => compareWords(a, b.words, 0, b.length));
  for (const scratchWriter of written) out.pushWords(scratchWriter.words, 0, scratchWriter.length);
}

/** Orders `candidate` against words[start, start + length). */
function compareWords(
  candidate: WordWriter,
  words: Int32Array,
  start: number,
  length: number,
): number {
  const shorter = Math.min(candidate.length, length);
  for (let index = 0; index < shorter; index++) {
    const a = candidate.words[index]!;
    const b = words[start + index]!;
    if (a !== b) return a < b ? -1 : 1;
  }
  return candidate.length - length;
}

interface Renaming {
  readonly rename: readonly number[];
  readonly order: readonly number[];
}

const renamings = new Map<number, Renaming[]>();
const scratch = new WordWriter();

function renamingsOf(count: number): Renaming[] {
  let all = renamings.get(count);
  if (!all) {
    all = permutations(count).map((rename) => {
      const order: number[] = Array(count);
      rename.forEach((to, from) => (order[to] = from));
      return { rename, order };
    });
    renamings.set(count, all);
  }
  return all;
}

/**
 * What a server looks like whatever the names: renaming never changes it, so the canonical
 * order of servers can be sorted by it, and only renamings that sort it need comparing.
 */
function localKey(server: RaftServer): number {
  const vote = server.votedFor === null ? 0 : server.votedFor === server.id ? 1 : 2;
  const last = server.log[server.log.length - 1];
  let key = server.currentTerm;
  key = key * 4 + roles.indexOf(server.role);
  key = key * 64 + server.commitIndex;
  key = key * 64 + server.log.length;
  key = key * 64 + (last ? last.term : 0);
  key = key * 64 + server.snapshot.lastIncludedIndex;
  return key * 3 + vote;
}

const keys: number[] = [];

/** Writes the least encoding over all renamings of the servers (the symmetric view). */
export function writeRaftView(state: RaftModelState, out: WordWriter, bounds: RaftBounds): void {
  const start = out.length;
  let first = true;
  for (let id = 0; id < bounds.servers; id++) keys[id] = localKey(state.servers[id]!);
  for (const { rename, order } of renamingsOf(bounds.servers)) {
    let sorted = true;
    for (let position = 1; position < order.length && sorted; position++) {
      sorted = keys[order[position - 1]!]! <= keys[order[position]!]!;
    }
    if (!sorted) continue;
    scratch.reset();
    writeRenamed(state, rename, order, scratch);
    if (first || compareWords(scratch, out.words, start, out.length - start) < 0) {
      out.length = start;
      out.pushWords(scratch.words, 0, scratch.length);
      first = false;
    }
  }
}

/** The same state with server `from` renamed `rename[from]` (for tests of the view). */
export function renameServers(state: RaftModelState, rename: readonly number[]): RaftModelState {
  const count = state.servers.length;
  const servers: RaftServer[] = Array(count);
  const persisted: HardState[] = Array(count);
  const reorder = (values: readonly number[]) => {
    const result: number[] = Array(count);
    values.forEach((value, from) => (result[rename[from]!] = value));
    return result;
  };
  const vote = (votedFor: number | null) => (votedFor === null ? null : rename[votedFor]!);
  state.servers.forEach((server, from) => {
    const to = rename[from]!;
    servers[to] = {
      ...server,
      id: to,
      votedFor: vote(server.votedFor),
      votesGranted: renameMask(server.votesGranted, rename),
      nextIndex: reorder(server.nextIndex),
      matchIndex: reorder(server.matchIndex),
    };
    const hard = state.persisted[from]!;
    persisted[to] = { ...hard, votedFor: vote(hard.votedFor) };
  });
  const messages: Bag = state.messages
    .map((item) => {
      const envelope = {
        ...item.envelope,
        from: rename[item.envelope.from]!,
        to: rename[item.envelope.to]!,
      };
      return { key: envelopeKey(envelope), envelope, count: item.count };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const elected = state.elected.map((mask) => renameMask(mask, rename));
  return { ...state, servers, persisted, messages, elected };
}
