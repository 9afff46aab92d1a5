/**
 * `check raft --preset liveness`: the `raft` model with Raft's liveness (paper §5.2 "Raft uses
 * randomized election timeouts to ensure that split votes are rare"; §5.6 "Timing and
 * availability"), checked on the state graph under weak fairness (checker/liveness.ts):
 * - LeaderElected: whenever no server leads the highest term, one eventually does
 *   ([]<>, written as "no leader ~> leader");
 * - ValueCommitted: eventually a client's value is committed.
 *
 * Raft is live only under timing assumptions, which a graph without clocks states as
 * fairness and budgets (the environment's, not the protocol's):
 * - Delivery is fair: Deliver of each message (named by its content) and Heartbeat(i, j)
 *   (a leader's AppendEntries, a candidate's vote request) are weakly fair.
 * - Losses are bounded: at most maxDrops Drop steps in a behaviour (a counter in the state),
 *   so a behaviour cannot drop every retransmission. Duplication is unfair and bounded by
 *   the copies in flight.
 * - Split votes do not last: at most maxTimeouts election timeouts fire at any moment (free,
 *   unfair). Beyond them a timeout is "lone": it fires only when no server leads the highest
 *   term and no candidate of that term can still win, at the server with the most
 *   up-to-date log (ties: the lowest id), and it is weakly fair. That is what randomised
 *   timeouts give: eventually one server that can win times out alone and has time to win.
 * - Clients retry: ClientRequest(i, v) is weakly fair, and a client sends v to a leader
 *   only while v is neither committed nor in that leader's log.
 * - Disks complete their writes: Sync(i) (a leader's own entries become durable) is weakly
 *   fair.
 * Crashes (Restart) are unfair and bounded by maxRestarts: "no crash after some point".
 * The counters live beside the raft state, so this wraps the raft model rather than
 * changing its state: the safety invariants are the raft model's, checked on every state.
 */
import type { Fairness, Model, TemporalProperty } from '../../checker/model.js';
import { assert } from '../../spec/assert.js';
import { isUpToDate, lastLogIndex, lastLogTerm } from '../../spec/raft/log.js';
import { extendCodec, liftInvariants } from './model-extension.js';
import { commandAt, type ModelNode, type RaftBounds, type RaftModelState } from './model-state.js';
import { createRaftModel, raftLabel, type RaftAction } from './model.js';
import { quorum } from '../../spec/raft/node.js';
import type { RaftOptions } from '../../spec/raft/types.js';

export interface LivenessBudgets {
  /** Drop steps in a behaviour. */
  readonly maxDrops: number;
  /** Election timeouts that may fire at any moment (split votes, disruptions). */
  readonly maxTimeouts: number;
}

export interface LivenessState {
  readonly raft: RaftModelState;
  readonly drops: number;
  readonly timeouts: number;
}

function highestTerm(servers: readonly ModelNode[]): number {
  let highest = 0;
  for (const server of servers) highest = Math.max(highest, server.currentTerm);
  return highest;
}

/** Some server leads the highest term any server has reached. */
export function leaderOfHighestTerm(state: RaftModelState): boolean {
  const term = highestTerm(state.servers);
  return state.servers.some((server) => server.role === 'leader' && server.currentTerm === term);
}

/**
 * Whether candidate c can still win from the servers' states alone: those that voted for it
 * in its term, and those that still may (an older term, or its term with no vote yet) and
 * hold a log no more up to date than its own, make a quorum. Messages in flight do not
 * count: fair delivery and heartbeats resend what is lost.
 */
function canStillWin(state: RaftModelState, candidate: ModelNode): boolean {
  assert(candidate.role === 'candidate', 'only a candidate can win an election');
  const index = lastLogIndex(candidate);
  const term = lastLogTerm(candidate);
  let possible = 0;
  for (const server of state.servers) {
    if (server.id === candidate.id) {
      if (server.votedFor === candidate.id) possible++;
      continue;
    }
    if (server.currentTerm > candidate.currentTerm) continue;
    const olderTerm = server.currentTerm < candidate.currentTerm;
    if (!olderTerm && server.votedFor === candidate.id) possible++;
    else if ((olderTerm || server.votedFor === null) && isUpToDate(server, index, term))
      possible++;
  }
  assert(possible <= state.servers.length, 'more votes than servers');
  return possible >= quorum(candidate.clusterSize);
}

/** The server with the most up-to-date log (ties: the lowest id): the one a lone timeout wakes. */
function designatedServer(servers: readonly ModelNode[]): number {
  let best = servers[0]!;
  for (const server of servers) {
    // best's log is not at least as up to date as server's: server's is strictly more.
    if (!isUpToDate(server, lastLogIndex(best), lastLogTerm(best))) best = server;
  }
  return best.id;
}

/** A lone timeout of `server`: nobody leads the highest term and no election can finish. */
export function loneTimeout(state: RaftModelState, server: number): boolean {
  if (leaderOfHighestTerm(state)) return false;
  const term = highestTerm(state.servers);
  for (const node of state.servers) {
    if (node.role === 'candidate' && node.currentTerm === term && canStillWin(state, node))
      return false;
  }
  return designatedServer(state.servers) === server;
}

function valueHeld(node: ModelNode, value: number): boolean {
  for (let index = 1; index <= lastLogIndex(node); index++) {
    if (commandAt(node, index) === value) return true;
  }
  return false;
}

function clientSends(state: RaftModelState, server: number, value: number): boolean {
  if (state.committed.some((record) => record.command === value)) return false;
  return !valueHeld(state.servers[server]!, value);
}

export const raftLivenessProperties: readonly TemporalProperty<LivenessState>[] = [
  {
    name: 'LeaderElected',
    kind: 'leadsTo',
    trigger: (state) => !leaderOfHighestTerm(state.raft),
    holds: (state) => leaderOfHighestTerm(state.raft),
  },
  {
    name: 'ValueCommitted',
    kind: 'eventually',
    holds: (state) => state.raft.committed.some((record) => record.command !== null),
  },
];

export const raftLivenessFairness: Fairness<LivenessState, RaftAction> = {
  weakClass(action, state) {
    switch (action.type) {
      case 'Deliver':
      case 'Heartbeat':
      case 'ClientRequest':
      case 'Sync':
        return raftLabel(action);
      case 'Timeout':
        return loneTimeout(state.raft, action.server) ? raftLabel(action) : null;
      default:
        return null;
    }
  },
};

/** The budgets' successor of a step, or null when the environment forbids it. */
function budgetsAfter(
  state: LivenessState,
  action: RaftAction,
  budgets: LivenessBudgets,
): Pick<LivenessState, 'drops' | 'timeouts'> | null {
  const { drops, timeouts } = state;
  switch (action.type) {
    case 'Drop':
      return drops < budgets.maxDrops ? { drops: drops + 1, timeouts } : null;
    case 'Timeout':
      if (loneTimeout(state.raft, action.server)) return { drops, timeouts };
      return timeouts < budgets.maxTimeouts ? { drops, timeouts: timeouts + 1 } : null;
    case 'ClientRequest':
      return clientSends(state.raft, action.server, action.value) ? { drops, timeouts } : null;
    default:
      return { drops, timeouts };
  }
}

/** The raft model with the liveness environment, its properties and fairness. */
export function createRaftLivenessModel(
  bounds: RaftBounds,
  budgets: LivenessBudgets,
  options: RaftOptions = {},
): Model<LivenessState, RaftAction> {
  assert(budgets.maxDrops >= 0 && budgets.maxTimeouts >= 0, 'raft liveness: negative budget');
  assert(options.preVote !== true && options.checkQuorum !== true, 'liveness: no §9.6 options');
  const raft = createRaftModel(bounds, options, false);
  return {
    name: 'raft',
    initialStates: () =>
      raft.initialStates().map((initial) => ({ raft: initial, drops: 0, timeouts: 0 })),
    actions: (state) => raft.actions(state.raft),
    next: (state, action) => {
      const budgetsNext = budgetsAfter(state, action, budgets);
      if (budgetsNext === null) return null;
      const next = raft.next(state.raft, action);
      return next === null ? null : { raft: next, ...budgetsNext };
    },
    label: raft.label,
    diagram: (before, action, after) => raft.diagram!(before.raft, action, after.raft),
    invariants: liftInvariants<LivenessState>(raft.invariants),
    withinBounds: (state) => raft.withinBounds!(state.raft),
    codec: extendCodec<LivenessState>(
      raft.codec,
      (state, out) => {
        out.push(state.drops);
        out.push(state.timeouts);
      },
      (decoded, input) => ({ raft: decoded, drops: input.next(), timeouts: input.next() }),
    ),
    variables: (state) => ({
      ...raft.variables!(state.raft),
      drops: state.drops,
      timeouts: state.timeouts,
    }),
    properties: raftLivenessProperties,
    fairness: raftLivenessFairness,
  };
}
