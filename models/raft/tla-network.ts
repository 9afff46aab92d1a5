/**
 * The bag's faults as raft.tla has them: DuplicateMessage(m) adds a copy of m, DropMessage(m)
 * removes one.
 */
import type { TlaRaft } from './tla-raft.js';
import { withMessage, withoutMessage, type TlaState } from './tla-state.js';

export function duplicateMessage(
  raft: TlaRaft,
  state: TlaState,
  low: number,
  high: number,
): TlaState {
  const messages = withMessage(state.messages, low, high);
  return raft.successor(state, state.servers, messages, state.elections);
}

export function dropMessage(raft: TlaRaft, state: TlaState, low: number, high: number): TlaState {
  return raft.successor(
    state,
    state.servers,
    withoutMessage(state.messages, low, high),
    state.elections,
  );
}
