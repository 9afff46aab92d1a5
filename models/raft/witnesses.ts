/**
 * Why a Raft invariant fails in a state (the checker's `explain` hook): the witness a reader
 * needs to see the bug without reading the whole state, in the numbering of the labels
 * (servers s1..sN, values v1..vK, printing.ts). Called only on a state that violates the
 * invariant; it names the first witness found in a fixed order (terms, servers, indexes
 * ascending), so the text is deterministic.
 */
import { lastLogIndex, termAt, type LogHolder } from '../../spec/raft/log.js';
import {
  commandAt,
  holdsCommitted,
  type ModelCommand, type ModelData,
  type RaftModelState,
} from './model-state.js';
import { quorum } from '../../spec/raft/node.js';
import { serverName, serverSet, valueName } from './printing.js';

type Holder = LogHolder<ModelCommand, ModelData>;

/** "(term 2, v1)", "(term 1, no-op)", or "nothing" beyond the log. */
function entryText(holder: Holder, index: number): string {
  const command = commandAt(holder, index);
  if (command === undefined) return 'nothing';
  const term = termAt(holder, index);
  const value = command === null ? 'no-op' : valueName(command);
  return term === undefined ? `(compacted, ${value})` : `(term ${term}, ${value})`;
}

function committedText(state: RaftModelState, index: number): string {
  const record = state.committed[index - 1];
  if (record === undefined) return 'nothing committed';
  const value = record.command === null ? 'no-op' : valueName(record.command);
  return `(term ${record.term}, ${value}) committed in term ${record.inTerm}`;
}

const names = (set: Set<string>) => [...set].join(' and ');

export function explainElectionSafety(state: RaftModelState): string {
  const count = state.servers.length;
  const term = state.elected.findIndex((mask) => serverSet(mask, count).size > 1);
  if (term < 0) return 'no term has two leaders';
  return `${names(serverSet(state.elected[term]!, count))} both became leader in term ${term}`;
}

export function explainLogMatching(state: RaftModelState): string {
  const { servers } = state;
  for (let i = 0; i < servers.length; i++) {
    for (let j = i + 1; j < servers.length; j++) {
      const [a, b] = [servers[i]!, servers[j]!];
      for (let index = Math.min(lastLogIndex(a), lastLogIndex(b)); index >= 1; index--) {
        const term = termAt(a, index);
        if (term === undefined || term !== termAt(b, index)) continue;
        for (let earlier = 1; earlier <= index; earlier++) {
          const [left, right] = [entryText(a, earlier), entryText(b, earlier)];
          if (left === right) continue;
          return `${serverName(i)} and ${serverName(j)} both hold term ${term} at index ` +
            `${index} but differ at index ${earlier}: ${serverName(i)} has ${left}, ` +
            `${serverName(j)} has ${right}`;
        }
        break;
      }
    }
  }
  return 'every two logs agree up to their last common entry';
}

export function explainLeaderCompleteness(state: RaftModelState): string {
  for (const server of state.servers) {
    if (server.role !== 'leader') continue;
    for (const record of state.committed) {
      if (server.currentTerm <= record.inTerm) continue;
      if (holdsCommitted(server, record)) continue;
      const held = entryText(server, record.index);
      return `leader ${serverName(server.id)} of term ${server.currentTerm} holds ${held} ` +
        `at index ${record.index}, where ${committedText(state, record.index)}`;
    }
  }
  return 'every leader holds every entry committed before its term';
}

export function explainStateMachineSafety(state: RaftModelState): string {
  for (const server of state.servers) {
    for (let index = 1; index <= server.commitIndex; index++) {
      const record = state.committed[index - 1];
      if (record !== undefined && holdsCommitted(server, record)) continue;
      const held = entryText(server, index);
      return `${serverName(server.id)} has committed index ${index} holding ${held}, ` +
        `where ${committedText(state, index)}`;
    }
  }
  return 'every server commits the committed entries';
}

export function explainAppliedCommitted(state: RaftModelState): string {
  for (const [id, applied] of state.applied.entries()) {
    for (let at = 0; at < applied.length; at++) {
      const record = state.committed[at];
      if (record !== undefined && record.command === applied[at]) continue;
      const value = applied[at] === null ? 'no-op' : valueName(applied[at]!);
      return `${serverName(id)} applied ${value} at index ${at + 1}, ` +
        `where ${committedText(state, at + 1)}`;
    }
  }
  return 'every application applied a prefix of the committed log';
}

export function explainAppliedUpToCommit(state: RaftModelState): string {
  for (const [id, server] of state.servers.entries()) {
    const applied = state.applied[id]!.length;
    if (applied === server.commitIndex) continue;
    return `${serverName(id)} applied ${applied} entries, its commitIndex is ${server.commitIndex}`;
  }
  return 'every application applied up to its commit index';
}

export function explainCommittedDurable(state: RaftModelState): string {
  const needed = quorum(state.servers.length);
  for (const record of state.committed) {
    const holders = state.durable
      .map(({ snapshot, entries }) => holdsCommitted({ snapshot, log: entries }, record))
      .flatMap((held, id) => (held ? [serverName(id)] : []));
    if (holders.length >= needed) continue;
    return `index ${record.index} ${committedText(state, record.index)} is durable on ` +
      `${holders.length} of ${state.servers.length} servers (${holders.join(', ') || 'none'}), ` +
      `a quorum is ${needed}`;
  }
  return 'every committed entry is durable on a quorum';
}

/** The invariants that read a proof-only flag: the flag says what the last step did. */
export const flagWitnesses: Readonly<Record<string, string>> = {
  AppliedOnce: 'an apply effect handed an entry already applied, or skipped one',
  CommitMonotonic: "a step lowered a server's commit index or applied index",
  LeaderAppendOnly: 'a leader lost or changed an entry of its log within its term',
  LinearizableReads: 'a read was served at an index below an entry committed before it came',
  NoTermRaisedAlone: 'an election timeout alone (no message heard) raised a term',
  LeaseRespected: 'a server hearing a live leader heeded a vote request of a higher term',
};
