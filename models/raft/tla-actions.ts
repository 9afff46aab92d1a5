/**
 * raft.tla's actions as values (one per action and actors: `RequestVote(i, j)`, `Receive(m)`),
 * the list of those that need no message, and the one dispatch from an action to its step
 * (tla-server-actions.ts, tla-receive.ts, tla-network.ts).
 */
import type { TlaBounds, TlaRaft } from './tla-raft.js';
import { receive } from './tla-receive.js';
import { dropMessage, duplicateMessage } from './tla-network.js';
import {
  advanceCommitIndex,
  appendEntries,
  becomeLeader,
  clientRequest,
  requestVote,
  restart,
  timeout,
} from './tla-server-actions.js';
import type { TlaState } from './tla-state.js';

export type TlaAction =
  | {
      readonly type: 'Restart' | 'Timeout' | 'BecomeLeader' | 'AdvanceCommitIndex';
      readonly i: number;
    }
  | { readonly type: 'RequestVote' | 'AppendEntries'; readonly i: number; readonly j: number }
  | { readonly type: 'ClientRequest'; readonly i: number; readonly v: number }
  | {
      readonly type: 'Receive' | 'DuplicateMessage' | 'DropMessage';
      readonly low: number;
      readonly high: number;
    };

/** The actions that need no message, in the order the checker tries them. */
export function staticActions(bounds: TlaBounds): TlaAction[] {
  const { servers, values } = bounds;
  const actions: TlaAction[] = [];
  for (let i = 0; i < servers; i++) actions.push({ type: 'Restart', i });
  for (let i = 0; i < servers; i++) actions.push({ type: 'Timeout', i });
  for (let i = 0; i < servers; i++) {
    for (let j = 0; j < servers; j++) actions.push({ type: 'RequestVote', i, j });
  }
  for (let i = 0; i < servers; i++) actions.push({ type: 'BecomeLeader', i });
  for (let i = 0; i < servers; i++) {
    for (let v = 0; v < values; v++) actions.push({ type: 'ClientRequest', i, v });
  }
  for (let i = 0; i < servers; i++) actions.push({ type: 'AdvanceCommitIndex', i });
  for (let i = 0; i < servers; i++) {
    for (let j = 0; j < servers; j++) if (i !== j) actions.push({ type: 'AppendEntries', i, j });
  }
  return actions;
}

/** One raft.tla action, without the allLogs update that every step shares. */
export function stepTla(raft: TlaRaft, state: TlaState, action: TlaAction): TlaState | null {
  switch (action.type) {
    case 'Restart':
      return restart(raft, state, action.i);
    case 'Timeout':
      return timeout(raft, state, action.i);
    case 'RequestVote':
      return requestVote(raft, state, action.i, action.j);
    case 'BecomeLeader':
      return becomeLeader(raft, state, action.i);
    case 'ClientRequest':
      return clientRequest(raft, state, action.i, action.v);
    case 'AdvanceCommitIndex':
      return advanceCommitIndex(raft, state, action.i);
    case 'AppendEntries':
      return appendEntries(raft, state, action.i, action.j);
    case 'Receive':
      return receive(raft, state, action.low, action.high);
    case 'DuplicateMessage':
      return duplicateMessage(raft, state, action.low, action.high);
    case 'DropMessage':
      return dropMessage(raft, state, action.low, action.high);
  }
}
