/**
 * How the `raft` model's states read in traces, ITF files and replay messages. One numbering
 * everywhere (the labels', the diagrams' and raft.tla's): servers are s1..sN (server id 0 is
 * s1), client values v1..vK (value 0 is v1), a no-op entry's command None. Every per-server
 * sequence becomes a record keyed by server name (`servers.s2.currentTerm`, `matchIndex.s3`),
 * every bit mask of servers a set of names (`votesGranted |-> {"s1", "s2"}`), and the
 * proof-only `elected` a function from term to the set of servers elected in it.
 *
 * Printing only: the checker stores, fingerprints and explores the states as they are.
 */
import type {
  CommitRecord,
  ModelCommand,
  ModelData,
  ModelMessage,
  ModelNode,
  ModelPersisted,
  RaftModelState,
} from './model-state.js';
import { logEntriesArray } from '../../spec/raft/log-entries.js';
import type { Entry, Snapshot } from '../../spec/raft/types.js';

/** Server id 0 is s1, as in raft.tla's model values and the labels. */
export const serverName = (id: number) => `s${id + 1}`;

/** Client value 0 is v1; null (a leader's no-op entry, §6.4) stays null (None). */
export const valueName = (command: ModelCommand | null) =>
  command === null ? null : `v${command + 1}`;

/** The servers whose bits are set in `mask`, by name, in id order. */
export function serverSet(mask: number, count: number): Set<string> {
  const members = new Set<string>();
  for (let id = 0; id < count; id++) if ((mask & (1 << id)) !== 0) members.add(serverName(id));
  return members;
}

/** A per-server sequence as a record keyed by server name. */
export function byServer<T, U>(values: readonly T[], print: (value: T) => U): Record<string, U> {
  const record: Record<string, U> = {};
  values.forEach((value, id) => (record[serverName(id)] = print(value)));
  return record;
}

const printedServer = (id: number | null) => (id === null ? null : serverName(id));
const printedEntries = (entries: readonly Entry<ModelCommand>[]) =>
  entries.map((entry) => ({ term: entry.term, command: valueName(entry.command) }));
const printedData = (data: ModelData) => data.map(valueName);

function printedSnapshot(snapshot: Snapshot<ModelData> | null) {
  if (snapshot === null) return null;
  return { ...snapshot, data: printedData(snapshot.data) };
}

function printedNode(node: ModelNode) {
  const count = node.clusterSize;
  // `id` is the record's key; every other field keeps its name and order.
  const { id: _key, ...fields } = node;
  return {
    ...fields,
    votedFor: printedServer(node.votedFor),
    log: printedEntries(logEntriesArray(node.log)),
    snapshot: printedSnapshot(node.snapshot),
    leader: printedServer(node.leader),
    votesGranted: serverSet(node.votesGranted, count),
    progress: byServer(node.progress, (progress) => progress),
    recentlyActive: serverSet(node.recentlyActive, count),
    pendingReads: node.pendingReads.map((read) => ({
      ...read,
      acknowledged: serverSet(read.acknowledged, count),
    })),
  };
}

function printedPersisted(persisted: ModelPersisted) {
  const { hardState } = persisted;
  return {
    hardState: { ...hardState, votedFor: printedServer(hardState.votedFor) },
    snapshot: printedSnapshot(persisted.snapshot),
    entries: printedEntries(persisted.entries),
  };
}

/** A message with its entries' and snapshot's values named (for labels too). */
export function printedMessage(message: ModelMessage) {
  switch (message.type) {
    case 'AppendEntriesRequest':
      return { ...message, entries: printedEntries(message.entries) };
    case 'InstallSnapshotRequest':
      return { ...message, snapshot: printedSnapshot(message.snapshot) };
    default:
      return message;
  }
}

/** elected[t] (a bit mask) as term -> the set of servers that became leader in term t. */
function printedElected(elected: readonly number[], count: number): Map<number, Set<string>> {
  const byTerm = new Map<number, Set<string>>();
  elected.forEach((mask, term) => {
    if (mask !== 0) byTerm.set(term, serverSet(mask, count));
  });
  return byTerm;
}

const printedCommit = (record: CommitRecord) => ({ ...record, command: valueName(record.command) });

/** The state as traces print it (the model's `variables` hook). */
export function raftVariables(state: RaftModelState): Record<string, unknown> {
  const count = state.servers.length;
  return {
    ...state,
    servers: byServer(state.servers, printedNode),
    persisted: byServer(state.persisted, printedPersisted),
    durable: byServer(state.durable, printedPersisted),
    applied: byServer(state.applied, printedData),
    // The bag as raft.tla's: a function from message to its number of copies.
    messages: new Map(
      state.messages.map(({ envelope, count: copies }) => [
        {
          from: serverName(envelope.from),
          to: serverName(envelope.to),
          message: printedMessage(envelope.message),
        },
        copies,
      ]),
    ),
    elected: printedElected(state.elected, count),
    committed: state.committed.map(printedCommit),
  };
}
