/**
 * The Raft invariants about logs and the committed log (Raft paper Figure 3, §5.3, §5.4):
 * LogMatching, LeaderCompleteness, StateMachineSafety and CommittedDurable. The last three read
 * the group's committed log, `committed[k - 1]` for index k, recorded when a leader first
 * committed each index: the `raft` model keeps it as a proof-only variable. The simulator's
 * monitor builds its own from the first entry it saw committed at each index, and compares
 * terms only (a live server's commands are not compared: conform compares their digests);
 * neither runtime tool knows the term a leader committed in, which only LeaderCompleteness
 * and the witnesses read. CommittedDurable reads what every server saved: only the model
 * sees every disk at once.
 */
import type { LogHolder } from '../spec/raft/log.js';
import { lastLogIndex, persistedLog, termAt } from '../spec/raft/log.js';
import type { Entry } from '../spec/raft/types.js';
import { quorum } from '../spec/raft/node.js';
import {
  committedText,
  entryText,
  holdsCommitted,
  type CommittedEntry,
  type RaftReading,
  type RaftServerView,
} from './raft-view.js';

export interface LogsView<C, D> {
  readonly servers: readonly RaftServerView<C, D>[];
}

export interface CommittedView<C, D> extends LogsView<C, D> {
  readonly committed: readonly CommittedEntry<C>[];
}

export interface DurableView<C, D> extends CommittedView<C, D> {
  /** What each server's storage holds durably (synced): all a crash leaves it. */
  readonly durable: readonly { readonly snapshot: LogHolder<C, D>['snapshot'];
    readonly entries: readonly Entry<C>[] }[];
}

/** Whether logs `a` and `b` differ below the last index where they hold an entry of one term. */
function differBelowCommonEntry<C, D>(
  reading: RaftReading<C, D>,
  a: LogHolder<C, D>,
  b: LogHolder<C, D>,
): boolean {
  for (let index = Math.min(lastLogIndex(a), lastLogIndex(b)); index >= 1; index--) {
    const term = termAt(a, index);
    if (term === undefined || term !== termAt(b, index)) continue;
    for (let earlier = 1; earlier <= index; earlier++) {
      if (reading.commandAt(a, earlier) !== reading.commandAt(b, earlier)) return true;
      const termA = termAt(a, earlier);
      const termB = termAt(b, earlier);
      if (termA !== undefined && termB !== undefined && termA !== termB) return true;
    }
    return false;
  }
  return false;
}

/** Log Matching: two logs with an entry of the same index and term agree up to it (§5.3). */
export function logMatching<C, D>(reading: RaftReading<C, D>, view: LogsView<C, D>): boolean {
  const { servers } = view;
  for (let i = 0; i < servers.length; i++) {
    for (let j = i + 1; j < servers.length; j++) {
      if (differBelowCommonEntry(reading, servers[i]!, servers[j]!)) return false;
    }
  }
  return true;
}

export function explainLogMatching<C, D>(
  reading: RaftReading<C, D>,
  view: LogsView<C, D>,
): string {
  const { servers } = view;
  const name = reading.serverName;
  for (let i = 0; i < servers.length; i++) {
    for (let j = i + 1; j < servers.length; j++) {
      const [a, b] = [servers[i]!, servers[j]!];
      for (let index = Math.min(lastLogIndex(a), lastLogIndex(b)); index >= 1; index--) {
        const term = termAt(a, index);
        if (term === undefined || term !== termAt(b, index)) continue;
        for (let earlier = 1; earlier <= index; earlier++) {
          const [left, right] = [entryText(reading, a, earlier), entryText(reading, b, earlier)];
          if (left === right) continue;
          return `${name(i)} and ${name(j)} both hold term ${term} at index ${index} but ` +
            `differ at index ${earlier}: ${name(i)} has ${left}, ${name(j)} has ${right}`;
        }
        break;
      }
    }
  }
  return 'every two logs agree up to their last common entry';
}

/** Leader Completeness: a leader holds every entry committed in an earlier term (§5.4). */
export function leaderCompleteness<C, D>(
  reading: RaftReading<C, D>,
  view: CommittedView<C, D>,
): boolean {
  for (const server of view.servers) {
    if (server.role !== 'leader') continue;
    for (const record of view.committed) {
      if (server.currentTerm > record.inTerm && !holdsCommitted(reading, server, record)) {
        return false;
      }
    }
  }
  return true;
}

export function explainLeaderCompleteness<C, D>(
  reading: RaftReading<C, D>,
  view: CommittedView<C, D>,
): string {
  for (const server of view.servers) {
    if (server.role !== 'leader') continue;
    for (const record of view.committed) {
      if (server.currentTerm <= record.inTerm) continue;
      if (holdsCommitted(reading, server, record)) continue;
      const held = entryText(reading, server, record.index);
      return `leader ${reading.serverName(server.id)} of term ${server.currentTerm} holds ` +
        `${held} at index ${record.index}, where ` +
        `${committedText(reading, view.committed, record.index)}`;
    }
  }
  return 'every leader holds every entry committed before its term';
}

/**
 * State Machine Safety: no server applies (commits) at an index an entry other than the one
 * committed there, so no two servers apply different entries at one index (§5.4.3);
 * snapshots count as applied. The body, one index of one server, is `isCommittedEntry`.
 */
export function stateMachineSafety<C, D>(
  reading: RaftReading<C, D>,
  view: CommittedView<C, D>,
): boolean {
  for (const server of view.servers) {
    for (let index = 1; index <= server.commitIndex; index++) {
      const record = view.committed[index - 1];
      if (record === undefined || !holdsCommitted(reading, server, record)) return false;
    }
  }
  return true;
}

export function explainStateMachineSafety<C, D>(
  reading: RaftReading<C, D>,
  view: CommittedView<C, D>,
): string {
  for (const server of view.servers) {
    for (let index = 1; index <= server.commitIndex; index++) {
      const record = view.committed[index - 1];
      if (record !== undefined && holdsCommitted(reading, server, record)) continue;
      return committedMismatchText(reading.serverName(server.id), index,
        entryText(reading, server, index), committedText(reading, view.committed, index));
    }
  }
  return 'every server commits the committed entries';
}

/** StateMachineSafety's witness for one server and index, in the words of each tool's entries. */
export function committedMismatchText(
  server: string,
  index: number,
  held: string,
  committed: string,
): string {
  return `${server} has committed index ${index} holding ${held}, where ${committed}`;
}

/**
 * Committed Durable: every committed entry is durable on a quorum (a crash keeps it), so no
 * leader loses it: a leader that counted its own copy before its storage reported it breaks it.
 */
export function committedDurable<C, D>(
  reading: RaftReading<C, D>,
  view: DurableView<C, D>,
): boolean {
  const needed = quorum(view.servers.length);
  const durable = view.durable.map(persistedLog);
  for (const record of view.committed) {
    let copies = 0;
    for (const holder of durable) {
      if (holdsCommitted(reading, holder, record)) copies++;
    }
    if (copies < needed) return false;
  }
  return true;
}

export function explainCommittedDurable<C, D>(
  reading: RaftReading<C, D>,
  view: DurableView<C, D>,
): string {
  const needed = quorum(view.servers.length);
  for (const record of view.committed) {
    const holders = view.durable
      .map((saved) => holdsCommitted(reading, persistedLog(saved), record))
      .flatMap((held, id) => (held ? [reading.serverName(id)] : []));
    if (holders.length >= needed) continue;
    return `index ${record.index} ${committedText(reading, view.committed, record.index)} is ` +
      `durable on ${holders.length} of ${view.servers.length} servers ` +
      `(${holders.join(', ') || 'none'}), a quorum is ${needed}`;
  }
  return 'every committed entry is durable on a quorum';
}
