/**
 * The raft.tla preset's state as raft.tla's variables (functions as Maps, sets as Sets, logs
 * as sequences of [term, value] records), for traces and ITF output, and its actions' labels.
 */
import {
  absent,
  commitIndexOffset,
  logOffset,
  logToArray,
  matchIndexOffset,
  messageRecord,
  nextIndexOffset,
  nil,
  roleNames,
  roleOffset,
  termOffset,
  votedForOffset,
  voterLogOffset,
  votesGrantedOffset,
  votesRespondedOffset,
  type TlaState,
} from './tla-state.js';
import { serverName, serverSet, valueName } from './printing.js';
import type { TlaAction } from './tla-actions.js';

interface RaftShape {
  readonly bounds: { readonly servers: number };
  readonly width: number;
}

const name = serverName;

/** A packed log as raft.tla's sequence of [term, value], values named v1.. as the labels. */
function printedLog(log: number) {
  return logToArray(log).map(({ term, value }) => ({ term, value: valueName(value) }));
}

const members = serverSet;

/** A message as raft.tla's record, its servers and values named as everywhere else. */
export function printedMessageRecord(low: number, high: number): Record<string, unknown> {
  const record = messageRecord(low, high);
  record['msource'] = name(record['msource'] as number);
  record['mdest'] = name(record['mdest'] as number);
  for (const field of ['mlog', 'mentries']) {
    const entries = record[field] as { term: number; value: number }[] | undefined;
    if (!entries) continue;
    record[field] = entries.map(({ term, value }) => ({ term, value: valueName(value) }));
  }
  return record;
}

function voterLogMap(words: ArrayLike<number>, start: number, count: number): Map<string, unknown> {
  const map = new Map<string, unknown>();
  for (let voter = 0; voter < count; voter++) {
    const log = words[start + voter]!;
    if (log !== absent) map.set(name(voter), printedLog(log));
  }
  return map;
}

export function tlaVariables(raft: RaftShape, state: TlaState): Record<string, unknown> {
  const count = raft.bounds.servers;
  const perServer = (read: (base: number, server: number) => unknown) =>
    new Map(
      Array.from({ length: count }, (_, server) => [
        name(server),
        read(server * raft.width, server),
      ]),
    );
  const words = state.servers;
  const messages = new Map<unknown, number>();
  for (let at = 0; at < state.messages.length; at += 3) {
    const record = printedMessageRecord(state.messages[at]!, state.messages[at + 1]!);
    messages.set(record, state.messages[at + 2]!);
  }
  const peers = (base: number, offset: number) =>
    new Map(Array.from({ length: count }, (_, peer) => [name(peer), words[base + offset + peer]!]));
  return {
    messages,
    elections: new Set(
      state.elections.map((election) => ({
        eterm: election[0]! & 31,
        eleader: name((election[0]! >>> 5) & 7),
        elog: printedLog(election[1]!),
        evotes: members(election[0]! >>> 8, count),
        evoterLog: voterLogMap(election, 2, count),
      })),
    ),
    allLogs: new Set(Array.from(state.allLogs, printedLog)),
    currentTerm: perServer((base) => words[base + termOffset]!),
    state: perServer((base) => roleNames[words[base + roleOffset]!]),
    votedFor: perServer((base) => {
      const votedFor = words[base + votedForOffset]!;
      return votedFor === nil ? 'Nil' : name(votedFor);
    }),
    log: perServer((base) => printedLog(words[base + logOffset]!)),
    commitIndex: perServer((base) => words[base + commitIndexOffset]!),
    votesResponded: perServer((base) => members(words[base + votesRespondedOffset]!, count)),
    votesGranted: perServer((base) => members(words[base + votesGrantedOffset]!, count)),
    voterLog: perServer((base) => voterLogMap(words, base + voterLogOffset(count), count)),
    nextIndex: perServer((base) => peers(base, nextIndexOffset)),
    matchIndex: perServer((base) => peers(base, matchIndexOffset(count))),
  };
}

/** An action as traces show it: its raft.tla name and actors, a message as its record. */
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
