/**
 * The `raft` model's hand codec (32-bit words, no strings) and its symmetric view: with
 * `--symmetry`, the fingerprinted view is the least encoding over all renamings of the
 * servers, so states that differ only in server names count once. Commands are written plus
 * one (0: a no-op); a snapshot with lastIncludedIndex 0 is none.
 */
import type { StateCodec } from '../../checker/model.js';
import { WordWriter, type WordReader } from '../../checker/words.js';
import { compareWords, permutations, writeLeastView } from '../../checker/symmetry.js';
import {
  commandAt,
  type CommitRecord,
  type ModelData,
  type ModelMessage,
  type ModelNode,
  type ModelPersisted,
  type RaftBounds,
  type RaftModelState,
  type ReadRecord,
} from './model-state.js';
import { envelopeKey, type Bag, type InFlight } from './network.js';
import type { Inflight, Progress } from '../../spec/raft/progress.js';
import { logEntriesOf, logEntryAt, type LogEntries } from '../../spec/raft/log-entries.js';
import type { Entry, HardState, PendingRead, Role, Snapshot } from '../../spec/raft/types.js';

type Message = ModelMessage;
const roles: readonly Role[] = ['follower', 'precandidate', 'candidate', 'leader'];
const messageTypes: readonly Message['type'][] = [
  'RequestVoteRequest',
  'RequestVoteResponse',
  'AppendEntriesRequest',
  'AppendEntriesResponse',
  'InstallSnapshotRequest',
  'InstallSnapshotResponse',
  'PreVoteRequest',
  'PreVoteResponse',
];

const commandWord = (command: number | null) => (command === null ? 0 : command + 1);
const commandOf = (word: number) => (word === 0 ? null : word - 1);

function writeSnapshot(snapshot: Snapshot<ModelData> | null, out: WordWriter): void {
  if (snapshot === null) {
    out.push(0);
    return;
  }
  out.push(snapshot.lastIncludedIndex);
  out.push(snapshot.lastIncludedTerm);
  for (const command of snapshot.data) out.push(commandWord(command));
}

function readSnapshot(input: WordReader): Snapshot<ModelData> | null {
  const lastIncludedIndex = input.next();
  if (lastIncludedIndex === 0) return null;
  const lastIncludedTerm = input.next();
  const data: (number | null)[] = [];
  for (let index = 0; index < lastIncludedIndex; index++) data.push(commandOf(input.next()));
  return { lastIncludedIndex, lastIncludedTerm, data };
}

const entryWord = (entry: Entry<number>) => (entry.term << 8) | commandWord(entry.command);

function writeEntries(entries: readonly Entry<number>[], out: WordWriter): void {
  out.push(entries.length);
  for (const entry of entries) out.push(entryWord(entry));
}

/** A node's log, in the words writeEntries writes for the same entries. */
function writeLog(log: LogEntries<number>, out: WordWriter): void {
  out.push(log.length);
  for (let position = 0; position < log.length; position++) {
    out.push(entryWord(logEntryAt(log, position)!));
  }
}

function readEntries(input: WordReader): Entry<number>[] {
  const entries: Entry<number>[] = [];
  const length = input.next();
  for (let index = 0; index < length; index++) {
    const word = input.next();
    entries.push({ term: word >>> 8, command: commandOf(word & 0xff) });
  }
  return entries;
}

/** Identity renaming, for the plain encoding. */
const identities: number[][] = [];
function identity(count: number): readonly number[] {
  while (identities.length <= count) {
    identities.push(Array.from({ length: identities.length }, (_, id) => id));
  }
  return identities[count]!;
}

const renameVote = (votedFor: number | null, rename: readonly number[]) =>
  votedFor === null ? 0 : rename[votedFor]! + 1;

function renameMask(mask: number, rename: readonly number[]): number {
  let result = 0;
  for (let from = 0; from < rename.length; from++)
    if ((mask & (1 << from)) !== 0) result |= 1 << rename[from]!;
  return result;
}

/** The hard state and the snapshot; the entries follow (writeEntries, writeLog). */
function writeHardState(
  hard: HardState,
  snapshot: Snapshot<ModelData> | null,
  rename: readonly number[],
  out: WordWriter,
): void {
  out.push(hard.currentTerm);
  out.push(renameVote(hard.votedFor, rename));
  out.push(hard.commitIndex);
  writeSnapshot(snapshot, out);
}

function writePersisted(persisted: ModelPersisted, rename: readonly number[], out: WordWriter) {
  writeHardState(persisted.hardState, persisted.snapshot, rename, out);
  writeEntries(persisted.entries, out);
}

function readPersisted(input: WordReader): ModelPersisted {
  const currentTerm = input.next();
  const voted = input.next();
  const commitIndex = input.next();
  const hardState = { currentTerm, votedFor: voted === 0 ? null : voted - 1, commitIndex };
  const snapshot = readSnapshot(input);
  return { hardState, snapshot, entries: readEntries(input) };
}

/** One node, its peers in `order` and every server id renamed by `rename`. */
function writeServer(
  server: ModelNode,
  rename: readonly number[],
  order: readonly number[],
  out: WordWriter,
): void {
  writeHardState(server, server.snapshot, rename, out);
  writeLog(server.log, out);
  out.push(roles.indexOf(server.role) | (renameMask(server.votesGranted, rename) << 2));
  const leader = server.leader === null ? 0 : rename[server.leader]! + 1;
  const active = renameMask(server.recentlyActive, rename);
  out.push(leader | (active << 4) | (server.readSequence << 12));
  out.push(server.pendingReads.length);
  for (const read of server.pendingReads) {
    out.push(read.requestId);
    out.push(read.sequence | (renameMask(read.acknowledged, rename) << 16));
  }
  out.push(server.progress.length);
  if (server.progress.length === 0) return;
  for (const peer of order) writeProgress(server.progress[peer]!, out);
}

/** One follower's progress: state and probe flag with the inflight count, match, next. */
function writeProgress(progress: Progress, out: WordWriter): void {
  const replicate = progress.state === 'replicate' ? 1 : 0;
  const probeSent = progress.probeSent ? 2 : 0;
  out.push(replicate | probeSent | (progress.inflights.length << 2));
  out.push(progress.match);
  out.push(progress.next);
  for (const inflight of progress.inflights) {
    out.push(inflight.lastIndex);
    out.push(inflight.bytes);
  }
}

function readProgress(input: WordReader): Progress {
  const word = input.next();
  const match = input.next();
  const next = input.next();
  const inflights: Inflight[] = [];
  for (let at = 0; at < word >>> 2; at++) {
    const lastIndex = input.next();
    inflights.push({ lastIndex, bytes: input.next() });
  }
  const state = (word & 1) === 1 ? 'replicate' : 'probe';
  return { state, match, next, probeSent: (word & 2) !== 0, inflights };
}

/** A node, and its entries as the array they were read into (a saved-as-held disk's). */
function readServer(
  input: WordReader,
  id: number,
  clusterSize: number,
): { server: ModelNode; entries: readonly Entry<number>[] } {
  const hard = readPersisted(input);
  const word = input.next();
  const volatile = input.next();
  const pendingReads: PendingRead[] = [];
  const readCount = input.next();
  for (let index = 0; index < readCount; index++) {
    const requestId = input.next();
    const packed = input.next();
    pendingReads.push({ requestId, sequence: packed & 0xffff, acknowledged: packed >>> 16 });
  }
  const progress: Progress[] = [];
  const tracked = input.next();
  for (let peer = 0; peer < tracked; peer++) progress.push(readProgress(input));
  const leader = volatile & 0xf;
  const server: ModelNode = {
    id,
    clusterSize,
    currentTerm: hard.hardState.currentTerm,
    votedFor: hard.hardState.votedFor,
    log: logEntriesOf(hard.entries),
    snapshot: hard.snapshot,
    role: roles[word & 3]!,
    commitIndex: hard.hardState.commitIndex,
    leader: leader === 0 ? null : leader - 1,
    votesGranted: word >>> 2,
    progress,
    recentlyActive: (volatile >>> 4) & 0xff,
    readSequence: volatile >>> 12,
    pendingReads,
  };
  return { server, entries: hard.entries };
}

function sameEntries(a: readonly Entry<number>[], b: readonly Entry<number>[]): boolean {
  return (
    a === b ||
    (a.length === b.length &&
      a.every((entry, at) => entry.term === b[at]!.term && entry.command === b[at]!.command))
  );
}

function sameSnapshot(a: Snapshot<ModelData> | null, b: Snapshot<ModelData> | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return (
    a.lastIncludedIndex === b.lastIncludedIndex &&
    a.lastIncludedTerm === b.lastIncludedTerm &&
    a.data.every((command, index) => command === b.data[index])
  );
}

/** Whether two disks hold the same (the durable one is usually the written one). */
export function samePersisted(a: ModelPersisted, b: ModelPersisted): boolean {
  if (a === b) return true;
  const x = a.hardState;
  const y = b.hardState;
  return (
    x.currentTerm === y.currentTerm &&
    x.votedFor === y.votedFor &&
    x.commitIndex === y.commitIndex &&
    sameSnapshot(a.snapshot, b.snapshot) &&
    sameEntries(a.entries, b.entries)
  );
}

function sameAsLog(entries: readonly Entry<number>[], log: LogEntries<number>): boolean {
  if (entries.length !== log.length) return false;
  for (let at = 0; at < entries.length; at++) {
    const held = logEntryAt(log, at)!;
    if (entries[at]!.term !== held.term || entries[at]!.command !== held.command) return false;
  }
  return true;
}

/** Whether a node saved exactly what it holds (the usual case, written as one word). */
function savedAsHeld(persisted: ModelPersisted, server: ModelNode): boolean {
  const hard = persisted.hardState;
  return (
    hard.currentTerm === server.currentTerm &&
    hard.votedFor === server.votedFor &&
    hard.commitIndex === server.commitIndex &&
    sameSnapshot(persisted.snapshot, server.snapshot) &&
    sameAsLog(persisted.entries, server.log)
  );
}

function writeMessage(message: Message, out: WordWriter): void {
  out.push(messageTypes.indexOf(message.type));
  out.push(message.term);
  switch (message.type) {
    case 'RequestVoteRequest':
    case 'PreVoteRequest':
      out.push(message.lastLogIndex);
      out.push(message.lastLogTerm);
      break;
    case 'RequestVoteResponse':
    case 'PreVoteResponse':
      out.push(message.voteGranted ? 1 : 0);
      break;
    case 'AppendEntriesRequest':
      out.push(message.prevLogIndex);
      out.push(message.prevLogTerm);
      out.push(message.leaderCommit | (message.readSequence << 16));
      writeEntries(message.entries, out);
      break;
    case 'AppendEntriesResponse':
      out.push((message.success ? 1 : 0) | (message.readSequence << 1));
      out.push(message.matchIndex);
      out.push(message.conflictTerm | (message.conflictIndex << 16));
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
    case 'PreVoteRequest':
      return { type, term, lastLogIndex: input.next(), lastLogTerm: input.next() };
    case 'RequestVoteResponse':
    case 'PreVoteResponse':
      return { type, term, voteGranted: input.next() === 1 };
    case 'AppendEntriesRequest': {
      const prevLogIndex = input.next();
      const prevLogTerm = input.next();
      const packed = input.next();
      const entries = readEntries(input);
      const leaderCommit = packed & 0xffff;
      const readSequence = packed >>> 16;
      return { type, term, prevLogIndex, prevLogTerm, entries, leaderCommit, readSequence };
    }
    case 'AppendEntriesResponse': {
      const first = input.next();
      const matchIndex = input.next();
      const conflict = input.next();
      return {
        type,
        term,
        success: (first & 1) === 1,
        matchIndex,
        conflictTerm: conflict & 0xffff,
        conflictIndex: conflict >>> 16,
        readSequence: first >>> 1,
      };
    }
    case 'InstallSnapshotRequest':
      return { type, term, snapshot: readSnapshot(input)! };
    case 'InstallSnapshotResponse':
      return { type, term, matchIndex: input.next() };
  }
}

/** The commands 1..commitIndex of a node: what its application holds in the usual case. */
function committedCommands(server: ModelNode): (number | null)[] {
  const commands: (number | null)[] = [];
  for (let index = 1; index <= server.commitIndex; index++) {
    const command = commandAt(server, index);
    if (command === undefined) break;
    commands.push(command);
  }
  return commands;
}

/** An application that applied exactly its node's committed commands is written as one 0. */
function writeApplied(applied: ModelData, server: ModelNode, out: WordWriter): void {
  let usual = applied.length === server.commitIndex;
  for (let index = 1; index <= applied.length && usual; index++) {
    usual = commandAt(server, index) === applied[index - 1];
  }
  if (usual) {
    out.push(0);
    return;
  }
  out.push(applied.length + 1);
  for (const command of applied) out.push(commandWord(command));
}

function readApplied(input: WordReader, server: ModelNode): ModelData {
  const word = input.next();
  if (word === 0) return committedCommands(server);
  const applied: (number | null)[] = [];
  for (let index = 1; index < word; index++) applied.push(commandOf(input.next()));
  return applied;
}

/** Servers, saved state and history, with every server id renamed (messages apart). */
function writeServersAndHistory(
  state: RaftModelState,
  rename: readonly number[],
  order: readonly number[],
  out: WordWriter,
  writeMessages: (out: WordWriter) => void,
): void {
  for (const from of order) writeServer(state.servers[from]!, rename, order, out);
  for (const from of order) {
    const persisted = state.persisted[from]!;
    if (savedAsHeld(persisted, state.servers[from]!)) out.push(0);
    else {
      out.push(1);
      writePersisted(persisted, rename, out);
    }
  }
  for (const from of order) {
    const durable = state.durable[from]!;
    if (samePersisted(durable, state.persisted[from]!)) out.push(0);
    else {
      out.push(1);
      writePersisted(durable, rename, out);
    }
  }
  for (const from of order) writeApplied(state.applied[from]!, state.servers[from]!, out);
  writeMessages(out);
  const flags =
    (state.leaderLogRewritten ? 1 : 0) |
    (state.termRaisedAlone ? 2 : 0) |
    (state.leaseBroken ? 4 : 0) |
    (state.staleRead ? 8 : 0) |
    (state.commitRolledBack ? 16 : 0) |
    (state.applyOutOfOrder ? 32 : 0);
  out.push(state.restarts | (state.compactions << 8) | (flags << 16));
  out.push(state.readsIssued | (state.readsWaiting.length << 8));
  for (const read of state.readsWaiting) out.push(read.requestId | (read.floor << 8));
  out.push(state.elected.length);
  for (const mask of state.elected) out.push(renameMask(mask, rename));
  out.push(state.committed.length);
  for (const record of state.committed)
    out.push((record.term << 16) | (commandWord(record.command) << 8) | record.inTerm);
}

export function encodeRaftState(state: RaftModelState, out: WordWriter): void {
  const ids = identity(state.servers.length);
  writeServersAndHistory(state, ids, ids, out, (writer) => {
    writer.push(state.messages.length);
    for (const item of state.messages) {
      writer.push(item.envelope.from | (item.envelope.to << 8) | (item.count << 16));
      writeMessage(item.envelope.message, writer);
    }
  });
}

function readHistory(input: WordReader) {
  const counters = input.next();
  const readsWord = input.next();
  const readsWaiting: ReadRecord[] = [];
  for (let index = 0; index < readsWord >>> 8; index++) {
    const word = input.next();
    readsWaiting.push({ requestId: word & 0xff, floor: word >>> 8 });
  }
  const elected: number[] = [];
  const electedCount = input.next();
  for (let index = 0; index < electedCount; index++) elected.push(input.next());
  const committed: CommitRecord[] = [];
  const committedCount = input.next();
  for (let index = 1; index <= committedCount; index++) {
    const word = input.next();
    const command = commandOf((word >>> 8) & 0xff);
    committed.push({ index, term: word >>> 16, command, inTerm: word & 0xff });
  }
  const flags = counters >>> 16;
  return {
    readsIssued: readsWord & 0xff,
    readsWaiting,
    staleRead: (flags & 8) !== 0,
    elected,
    committed,
    restarts: counters & 0xff,
    compactions: (counters >>> 8) & 0xff,
    leaderLogRewritten: (flags & 1) !== 0,
    termRaisedAlone: (flags & 2) !== 0,
    leaseBroken: (flags & 4) !== 0,
    commitRolledBack: (flags & 16) !== 0,
    applyOutOfOrder: (flags & 32) !== 0,
  };
}

export function decodeRaftState(input: WordReader, clusterSize: number): RaftModelState {
  const read = Array.from({ length: clusterSize }, (_, id) => readServer(input, id, clusterSize));
  const servers = read.map(({ server }) => server);
  const persisted: ModelPersisted[] = read.map(({ server, entries }) => {
    if (input.next() === 1) return readPersisted(input);
    const { currentTerm, votedFor, commitIndex, snapshot } = server;
    return { hardState: { currentTerm, votedFor, commitIndex }, snapshot, entries };
  });
  const durable = persisted.map((written) => (input.next() === 1 ? readPersisted(input) : written));
  const applied = servers.map((server) => readApplied(input, server));
  const messages: InFlight[] = [];
  const messageCount = input.next();
  for (let index = 0; index < messageCount; index++) {
    const word = input.next();
    const envelope = { from: word & 0xff, to: (word >>> 8) & 0xff, message: readMessage(input) };
    messages.push({ key: envelopeKey(envelope), envelope, count: word >>> 16 });
  }
  const history = readHistory(input);
  // In the order of initialModelState and perform: one object shape for every state.
  return {
    servers,
    persisted,
    durable,
    applied,
    messages,
    restarts: history.restarts,
    compactions: history.compactions,
    readsIssued: history.readsIssued,
    readsWaiting: history.readsWaiting,
    staleRead: history.staleRead,
    elected: history.elected,
    committed: history.committed,
    leaderLogRewritten: history.leaderLogRewritten,
    termRaisedAlone: history.termRaisedAlone,
    leaseBroken: history.leaseBroken,
    commitRolledBack: history.commitRolledBack,
    applyOutOfOrder: history.applyOutOfOrder,
  };
}

export function raftCodec(bounds: RaftBounds): StateCodec<RaftModelState> {
  return { encode: encodeRaftState, decode: (input) => decodeRaftState(input, bounds.servers) };
}

// ---- symmetry ----

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
  writeServersAndHistory(state, rename, order, out, (writer) =>
    writeRenamedMessages(state.messages, rename, writer),
  );
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
  written.sort(compareWords);
  for (const scratchWriter of written) out.pushWords(scratchWriter.words, 0, scratchWriter.length);
}

interface Renaming {
  readonly rename: readonly number[];
  readonly order: readonly number[];
}

const renamings = new Map<number, Renaming[]>();

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
function localKey(server: ModelNode): number {
  const vote = server.votedFor === null ? 0 : server.votedFor === server.id ? 1 : 2;
  const last = logEntryAt(server.log, server.log.length - 1);
  let key = server.currentTerm;
  key = key * 4 + roles.indexOf(server.role);
  key = key * 64 + server.commitIndex;
  key = key * 64 + server.log.length;
  key = key * 64 + (last ? last.term : 0);
  key = key * 64 + (server.snapshot === null ? 0 : server.snapshot.lastIncludedIndex);
  return key * 3 + vote;
}

const keys: number[] = [];

/**
 * Writes the least encoding over the renamings of the servers (the symmetric view). Only the
 * renamings that list the servers in order of their local keys are tried: every image of a
 * state admits the same set of encodings, so the least is still the same for all of them.
 */
export function writeRaftView(state: RaftModelState, out: WordWriter, bounds: RaftBounds): void {
  for (let id = 0; id < bounds.servers; id++) keys[id] = localKey(state.servers[id]!);
  writeLeastView(
    out,
    renamingsOf(bounds.servers),
    ({ rename, order }, target) => writeRenamed(state, rename, order, target),
    ({ order }) => {
      for (let position = 1; position < order.length; position++) {
        if (keys[order[position - 1]!]! > keys[order[position]!]!) return false;
      }
      return true;
    },
  );
}

/** The same state with server `from` renamed `rename[from]` (for tests of the view). */
export function renameServers(state: RaftModelState, rename: readonly number[]): RaftModelState {
  const count = state.servers.length;
  const servers: ModelNode[] = Array(count);
  const persisted: ModelPersisted[] = Array(count);
  const durable: ModelPersisted[] = Array(count);
  const applied: ModelData[] = Array(count);
  const reorder = <T>(values: readonly T[]) => {
    const result: T[] = Array<T>(count);
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
      leader: vote(server.leader),
      recentlyActive: renameMask(server.recentlyActive, rename),
      pendingReads: server.pendingReads.map((read) => ({
        ...read,
        acknowledged: renameMask(read.acknowledged, rename),
      })),
      progress: server.progress.length === 0 ? server.progress : reorder(server.progress),
    };
    const renamed = (saved: ModelPersisted): ModelPersisted => {
      const hardState = { ...saved.hardState, votedFor: vote(saved.hardState.votedFor) };
      return { ...saved, hardState };
    };
    persisted[to] = renamed(state.persisted[from]!);
    durable[to] =
      state.durable[from] === state.persisted[from] ? persisted[to] : renamed(state.durable[from]!);
    applied[to] = state.applied[from]!;
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
  return { ...state, servers, persisted, durable, applied, messages, elected };
}
