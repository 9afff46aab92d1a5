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
 *
 * `--preset liveness-9.6` runs it with PreVote and CheckQuorum (dissertation §9.6) and one
 * more environment step, Isolate(i) (at most maxIsolations, unfair): from then on the network
 * loses every message from or to server i and no client reaches it, for good (LeaderElected
 * and ValueCommitted then hold if the others are no quorum). It adds the property
 * - LeaderStepsDown: an isolated leader eventually stops leading ("isolated leader ~> not
 *   leader"): a CheckQuorum leader's election timer fires, weakly fair, and finds no quorum;
 * and lone timeouts then wake the most up-to-date server that is not isolated, whose votes
 * alone count toward whether a candidate can still win. A healthy leader is not deposed by a
 * returning server: LeaseRespected and NoTermRaisedAlone, the raft model's invariants.
 * The counters live beside the raft state, so this wraps the raft model rather than
 * changing its state: the safety invariants are the raft model's, checked on every state.
 */
import type { Fairness, Model, TemporalProperty } from '../../checker/model.js';
import { assert } from '../../spec/assert.js';
import { isUpToDate, lastLogIndex, lastLogTerm } from '../../spec/raft/log.js';
import { extendCodec, liftInvariants } from './model-extension.js';
import {
  commandAt, patchState, type ModelNode, type RaftBounds, type RaftModelState,
} from './model-state.js';
import { createRaftModel, raftLabel, type RaftAction } from './model.js';
import { withoutMessagesOf } from './network.js';
import { serverName } from './printing.js';
import { quorum } from '../../spec/raft/node.js';
import type { RaftOptions } from '../../spec/raft/types.js';

export interface LivenessBudgets {
  /** Drop steps in a behaviour. */
  readonly maxDrops: number;
  /** Election timeouts that may fire at any moment (split votes, disruptions). */
  readonly maxTimeouts: number;
  /** Isolate steps in a behaviour (0 unless the §9.6 preset). */
  readonly maxIsolations?: number;
}

export interface LivenessState {
  readonly raft: RaftModelState;
  readonly drops: number;
  readonly timeouts: number;
  /** The server cut off for good, or -1. */
  readonly isolated: number;
}

/** The liveness environment's own step: cut a server off for good. */
export type LivenessAction = RaftAction | { readonly type: 'Isolate'; readonly server: number };

function highestTerm(servers: readonly ModelNode[]): number {
  let highest = 0;
  for (const server of servers) highest = Math.max(highest, server.currentTerm);
  return highest;
}

/** Some server (other than `isolated`) leads the highest term any server has reached. */
export function leaderOfHighestTerm(state: RaftModelState, isolated = -1): boolean {
  const term = highestTerm(state.servers);
  return state.servers.some((server) => server.role === 'leader' &&
    server.currentTerm === term && server.id !== isolated);
}

/**
 * Whether candidate c can still win from the servers' states alone: those that voted for it
 * in its term, and those that still may (an older term, or its term with no vote yet) and
 * hold a log no more up to date than its own, make a quorum. Messages in flight do not
 * count: fair delivery and heartbeats resend what is lost.
 */
function canStillWin(state: RaftModelState, candidate: ModelNode, isolated: number): boolean {
  assert(candidate.role === 'candidate', 'only a candidate can win an election');
  const index = lastLogIndex(candidate);
  const term = lastLogTerm(candidate);
  let possible = 0;
  if (candidate.id === isolated) return false;
  for (const server of state.servers) {
    if (server.id === candidate.id) {
      if (server.votedFor === candidate.id) possible++;
      continue;
    }
    if (server.id === isolated || server.currentTerm > candidate.currentTerm) continue;
    const olderTerm = server.currentTerm < candidate.currentTerm;
    if (!olderTerm && server.votedFor === candidate.id) possible++;
    else if ((olderTerm || server.votedFor === null) && isUpToDate(server, index, term))
      possible++;
  }
  assert(possible <= state.servers.length, 'more votes than servers');
  return possible >= quorum(candidate.clusterSize);
}

/** The server with the most up-to-date log (ties: the lowest id): the one a lone timeout wakes. */
function designatedServer(servers: readonly ModelNode[], isolated: number): number {
  const reachable = servers.filter((server) => server.id !== isolated);
  let best = reachable[0]!;
  for (const server of reachable) {
    // best's log is not at least as up to date as server's: server's is strictly more.
    if (!isUpToDate(server, lastLogIndex(best), lastLogTerm(best))) best = server;
  }
  return best.id;
}

/**
 * A lone timeout of `server`: nobody leads the highest term and no election can finish. An
 * isolated leader counts for nobody: the others hear no heartbeat from it and time out.
 */
export function loneTimeout(state: RaftModelState, server: number, isolated = -1): boolean {
  if (leaderOfHighestTerm(state, isolated)) return false;
  const term = highestTerm(state.servers);
  for (const node of state.servers) {
    if (node.role === 'candidate' && node.currentTerm === term &&
      canStillWin(state, node, isolated)) return false;
  }
  return designatedServer(state.servers, isolated) === server;
}

/**
 * Timers that fire, weakly fair and free, with CheckQuorum: a leader's (it checks its quorum)
 * and that of a follower whose lease names a leader that no longer sends it heartbeats (it
 * stopped leading that term, or it is isolated): without them the follower would ignore
 * every vote request for ever.
 */
function quorumCheck(state: LivenessState, action: LivenessAction, options: RaftOptions) {
  if (action.type !== 'Timeout' || options.checkQuorum !== true) return false;
  const node = state.raft.servers[action.server]!;
  if (node.role === 'leader') return true;
  if (node.leader === null || node.leader === action.server) return false;
  const leader = state.raft.servers[node.leader]!;
  return node.leader === state.isolated || leader.role !== 'leader' ||
    leader.currentTerm !== node.currentTerm;
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

/**
 * Whether the servers not isolated are too few for a quorum (two servers, one cut off): Raft
 * then promises neither a leader nor a commit, so LeaderElected and ValueCommitted hold.
 */
function noQuorumLeft(state: LivenessState): boolean {
  const size = state.raft.servers.length;
  return state.isolated >= 0 && size - 1 < quorum(size);
}

export const raftLivenessProperties: readonly TemporalProperty<LivenessState>[] = [
  {
    name: 'LeaderElected',
    kind: 'leadsTo',
    trigger: (state) => !leaderOfHighestTerm(state.raft),
    holds: (state) => leaderOfHighestTerm(state.raft) || noQuorumLeft(state),
  },
  {
    name: 'ValueCommitted',
    kind: 'eventually',
    holds: (state) => noQuorumLeft(state) ||
      state.raft.committed.some((record) => record.command !== null),
  },
];

/** An isolated leader eventually stops leading (the §9.6 preset). */
export const leaderStepsDown: TemporalProperty<LivenessState> = {
  name: 'LeaderStepsDown',
  kind: 'leadsTo',
  trigger: (state) => state.isolated >= 0 &&
    state.raft.servers[state.isolated]!.role === 'leader',
  holds: (state) => state.isolated < 0 ||
    state.raft.servers[state.isolated]!.role !== 'leader',
};

export function raftLivenessFairness(
  options: RaftOptions = {},
): Fairness<LivenessState, LivenessAction> {
  return {
    weakClass(action, state) {
      switch (action.type) {
        case 'Deliver':
        case 'Heartbeat':
        case 'ClientRequest':
        case 'Sync':
          return raftLabel(action);
        case 'Timeout':
          return quorumCheck(state, action, options) ||
            loneTimeout(state.raft, action.server, state.isolated) ? raftLabel(action) : null;
        default:
          return null;
      }
    },
  };
}

/**
 * Whether the isolation stops this step: a client request to the isolated server (its
 * clients are cut off too, so their traffic cannot keep an isolated leader's log changing).
 */
function cutOff(state: LivenessState, action: RaftAction): boolean {
  return state.isolated >= 0 && action.type === 'ClientRequest' &&
    action.server === state.isolated;
}

/**
 * The network loses what the isolated server sends and what is sent to it, at once: a
 * message to it waiting in the bag for ever would fill the copies in flight, and every fair
 * heartbeat of an isolated leader would then leave the bounds.
 */
function isolatedNetwork(raft: RaftModelState, isolated: number): RaftModelState {
  if (isolated < 0) return raft;
  const messages = withoutMessagesOf(raft.messages, isolated);
  return messages === raft.messages ? raft : patchState(raft, { messages });
}

/** The budgets' successor of a step, or null when the environment forbids it. */
function budgetsAfter(
  state: LivenessState,
  action: RaftAction,
  budgets: LivenessBudgets,
  options: RaftOptions,
): Pick<LivenessState, 'drops' | 'timeouts'> | null {
  const { drops, timeouts } = state;
  switch (action.type) {
    case 'Drop':
      return drops < budgets.maxDrops ? { drops: drops + 1, timeouts } : null;
    case 'Timeout':
      if (quorumCheck(state, action, options) ||
        loneTimeout(state.raft, action.server, state.isolated)) return { drops, timeouts };
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
): Model<LivenessState, LivenessAction> {
  assert(budgets.maxDrops >= 0 && budgets.maxTimeouts >= 0, 'raft liveness: negative budget');
  const isolations = budgets.maxIsolations ?? 0;
  assert(isolations === 0 || isolations === 1, 'raft liveness: at most one isolation');
  const raft = createRaftModel(bounds, options, false);
  const isolate: LivenessAction[] = isolations === 0 ? []
    : Array.from({ length: bounds.servers }, (_, server) => ({ type: 'Isolate', server }));
  return {
    name: 'raft',
    initialStates: () => raft.initialStates().map((initial) =>
      ({ raft: initial, drops: 0, timeouts: 0, isolated: -1 })),
    actions: (state) => [...raft.actions(state.raft), ...isolate],
    next: (state, action) => {
      if (action.type === 'Isolate') {
        if (state.isolated >= 0) return null;
        return { ...state, raft: isolatedNetwork(state.raft, action.server),
          isolated: action.server };
      }
      if (cutOff(state, action)) return null;
      const budgetsNext = budgetsAfter(state, action, budgets, options);
      if (budgetsNext === null) return null;
      const next = raft.next(state.raft, action);
      if (next === null) return null;
      return { ...state, raft: isolatedNetwork(next, state.isolated), ...budgetsNext };
    },
    label: (action) => action.type === 'Isolate'
      ? `Isolate(${serverName(action.server)})` : raft.label(action),
    diagram: (before, action, after) => action.type === 'Isolate'
      ? [{ kind: 'note', over: serverName(action.server), text: 'isolated for good' }]
      : raft.diagram!(before.raft, action, after.raft),
    invariants: liftInvariants<LivenessState>(raft.invariants),
    withinBounds: (state) => raft.withinBounds!(state.raft),
    codec: extendCodec<LivenessState>(
      raft.codec,
      (state, out) => {
        out.push(state.drops);
        out.push(state.timeouts);
        if (isolations > 0) out.push(state.isolated + 1);
      },
      (decoded, input) => ({
        raft: decoded, drops: input.next(), timeouts: input.next(),
        isolated: isolations > 0 ? input.next() - 1 : -1,
      }),
    ),
    variables: (state) => ({
      ...raft.variables!(state.raft),
      drops: state.drops,
      timeouts: state.timeouts,
      ...(isolations > 0 ? { isolated: state.isolated < 0 ? null : serverName(state.isolated) }
        : {}),
    }),
    properties: isolations > 0 ? [...raftLivenessProperties, leaderStepsDown]
      : raftLivenessProperties,
    fairness: raftLivenessFairness(options),
  };
}
