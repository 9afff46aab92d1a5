/**
 * The Raft invariants about what the applications hold (§5.4.3's State Machine Safety read
 * from the application, not from the log): AppliedCommitted and AppliedUpToCommit. The view
 * is each server's application as the `apply` and `restoreSnapshot` effects left it, the
 * commands in order (index k's at k - 1); only the `raft` model applies the commands it
 * checks (the runtime's applications are the groups', which conform checks step by step).
 */
import type { CommittedView } from './raft-logs.js';
import { committedText, type RaftReading } from './raft-view.js';

export interface AppliedView<C, D> extends CommittedView<C, D> {
  readonly applied: readonly (readonly (C | null)[])[];
}

/** Applied Committed: every server's application applied a prefix of the committed log. */
export function appliedCommitted<C, D>(view: AppliedView<C, D>): boolean {
  for (const applied of view.applied) {
    if (applied.length > view.committed.length) return false;
    for (let at = 0; at < applied.length; at++) {
      if (applied[at] !== view.committed[at]!.command) return false;
    }
  }
  return true;
}

export function explainAppliedCommitted<C, D>(
  reading: RaftReading<C, D>,
  view: AppliedView<C, D>,
): string {
  for (const [id, applied] of view.applied.entries()) {
    for (let at = 0; at < applied.length; at++) {
      const record = view.committed[at];
      const command = applied[at]!;
      if (record !== undefined && record.command === command) continue;
      const value = command === null ? 'no-op' : reading.commandName(command);
      return `${reading.serverName(id)} applied ${value} at index ${at + 1}, ` +
        `where ${committedText(reading, view.committed, at + 1)}`;
    }
  }
  return 'every application applied a prefix of the committed log';
}

/**
 * Applied Up To Commit: the model's application applies in the step that commits, so every
 * server's applied index equals its commit index after every step: a node that commits an
 * entry without handing it to the application breaks it.
 */
export function appliedUpToCommit<C, D>(view: AppliedView<C, D>): boolean {
  return view.servers.every((server, id) => view.applied[id]!.length === server.commitIndex);
}

export function explainAppliedUpToCommit<C, D>(
  reading: RaftReading<C, D>,
  view: AppliedView<C, D>,
): string {
  for (const [id, server] of view.servers.entries()) {
    const applied = view.applied[id]!.length;
    if (applied === server.commitIndex) continue;
    return `${reading.serverName(id)} applied ${applied} entries, its commitIndex is ` +
      `${server.commitIndex}`;
  }
  return 'every application applied up to its commit index';
}
