/**
 * What the Raft invariants read of a Raft group (Raft paper Figure 3, §5.4): its servers'
 * logs, what each saved and applied, and the group's history, which no server records: who
 * became leader in which term, and what was committed. The `raft` model keeps that history in
 * proof-only variables (as ongardie/raft.tla marks its history variables); the simulator's
 * monitor and conform build the part they can from what the servers showed over a run.
 */
import { termAt, type LogHolder } from '../spec/raft/log.js';
import type { RaftNode } from '../spec/raft/types.js';

/** An entry of the group's committed log, recorded when a leader first committed its index. */
export interface CommittedEntry<C> {
  readonly index: number;
  readonly term: number;
  readonly command: C | null;
  /** The leader's term when it committed the entry. */
  readonly inTerm: number;
}

/** A server as the Raft invariants read it. */
export type RaftServerView<C, D> =
  Pick<RaftNode<C, D>, 'id' | 'role' | 'currentTerm' | 'commitIndex' | 'log' | 'snapshot'>;

/**
 * How the invariants read commands and name things: the model keeps a compacted entry's
 * command in its snapshot's data, a runtime snapshot is a state machine's state instead; the
 * model names servers s1..sN and values v1..vK (its labels' numbering).
 */
export interface RaftReading<C, D> {
  /** The command at `index`, from the snapshot or the log; undefined beyond the log. */
  commandAt(holder: LogHolder<C, D>, index: number): C | null | undefined;
  serverName(id: number): string;
  commandName(command: C): string;
}

/**
 * Whether an entry (its term, undefined where compaction kept only the command, and its
 * command) is the committed one: the body of StateMachineSafety, LeaderCompleteness and
 * CommittedDurable.
 */
export function isCommittedEntry<C>(
  record: Pick<CommittedEntry<C>, 'term' | 'command'>,
  term: number | undefined,
  command: C | null | undefined,
): boolean {
  return command === record.command && (term === undefined || term === record.term);
}

/** Whether a log (with its snapshot) holds the committed entry at its index. */
export function holdsCommitted<C, D>(
  reading: RaftReading<C, D>,
  holder: LogHolder<C, D>,
  record: CommittedEntry<C>,
): boolean {
  return isCommittedEntry(record, termAt(holder, record.index),
    reading.commandAt(holder, record.index));
}

/** "(term 2, v1)", "(term 1, no-op)", "(compacted, v1)", or "nothing" beyond the log. */
export function entryText<C, D>(
  reading: RaftReading<C, D>,
  holder: LogHolder<C, D>,
  index: number,
): string {
  const command = reading.commandAt(holder, index);
  if (command === undefined) return 'nothing';
  const term = termAt(holder, index);
  const value = command === null ? 'no-op' : reading.commandName(command);
  return term === undefined ? `(compacted, ${value})` : `(term ${term}, ${value})`;
}

/** "(term 2, v1) committed in term 3", or "nothing committed". */
export function committedText<C>(
  reading: RaftReading<C, unknown>,
  committed: readonly CommittedEntry<C>[],
  index: number,
): string {
  const record = committed[index - 1];
  if (record === undefined) return 'nothing committed';
  const value = record.command === null ? 'no-op' : reading.commandName(record.command);
  return `(term ${record.term}, ${value}) committed in term ${record.inTerm}`;
}
