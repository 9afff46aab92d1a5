// Raft's liveness (issue 10.3, paper §5.2 and §5.6): LeaderElected and ValueCommitted under
// weak fairness with a drop budget and lone election timeouts (spec/raft/liveness.ts). Counts
// are pinned from the code itself; the lassos of the planted faults are derived by hand.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkLiveness } from '../../checker/liveness.js';
import type { AnyModel, Model } from '../../checker/model.js';
import { resolveParams, UsageError } from '../../checker/params.js';
import { livenessBudgets, livenessRaftBounds, raftDefinition } from '../../models/raft/index.js';
import {
  createRaftLivenessModel,
  leaderOfHighestTerm,
  loneTimeout,
  type LivenessAction,
  type LivenessState,
} from '../../models/raft/liveness.js';
import type { RaftBounds } from '../../models/raft/model-state.js';

const small: RaftBounds = {
  servers: 3,
  values: 1,
  maxTerm: 2,
  maxLog: 2,
  maxMsgs: 1,
  maxRestarts: 0,
  maxCompactions: 0,
  maxReads: 0,
};

const labels = (model: AnyModel, actionIndexes: readonly number[]) => {
  let state = model.initialStates()[0];
  return actionIndexes.map((index) => {
    const action = model.actions(state)[index];
    state = model.next(state, action)!;
    return model.label(action);
  });
};

test('LeaderElected and ValueCommitted hold at small bounds (counts from the code)', () => {
  const result = checkLiveness(createRaftLivenessModel(small, livenessBudgets) as AnyModel);
  assert.is(result.result, 'ok');
  assert.equal(result.properties, ['LeaderElected', 'ValueCommitted']);
  assert.is(result.distinctStates, 62942);
  assert.is(result.edges, 372835);
});

test('lone timeout: only the server with the most up-to-date log, only with no election on', () => {
  const model = createRaftLivenessModel(small, livenessBudgets);
  const initial = model.initialStates()[0]!;
  // Equal (empty) logs: the lowest id is woken.
  assert.equal([0, 1, 2].map((server) => loneTimeout(initial.raft, server)), [true, false, false]);
  const timeout = (state: LivenessState, server: number) =>
    model.next(state, { type: 'Timeout', server })!;
  // s1's lone timeout spends no budget; s2's free one spends it, and then s3 cannot time out.
  const candidate = timeout(initial, 0);
  assert.is(candidate.timeouts, 0);
  assert.is(loneTimeout(candidate.raft, 0), false, 's1 can still win term 1');
  const split = timeout(candidate, 1);
  assert.is(split.timeouts, 1);
  assert.is(model.next(split, { type: 'Timeout', server: 2 }), null);
  // Two candidates of term 1 and no leader: either still wins with s3's vote, so no lone
  // timeout either.
  assert.is(leaderOfHighestTerm(split.raft), false);
  assert.equal([0, 1, 2].map((server) => loneTimeout(split.raft, server)), [false, false, false]);
});

test('a drop budget: the second Drop is not enabled', () => {
  const model = createRaftLivenessModel(small, { maxDrops: 1, maxTimeouts: 0 });
  let state = model.next(model.initialStates()[0]!, { type: 'Timeout', server: 0 })!;
  state = model.next(state, { type: 'Heartbeat', server: 0, peer: 1 })!;
  const envelope = state.raft.messages[0]!.envelope;
  const dropped = model.next(state, { type: 'Drop', envelope })!;
  assert.is(dropped.drops, 1);
  const again = model.next(dropped, { type: 'Heartbeat', server: 0, peer: 1 })!;
  const resent = again.raft.messages[0]!.envelope;
  assert.is(model.next(again, { type: 'Drop', envelope: resent }), null);
});

/** The liveness model with candidates that never ask for votes: a planted liveness fault. */
function mute(
  model: Model<LivenessState, LivenessAction>,
): Model<LivenessState, LivenessAction> {
  return {
    ...model,
    next: (state, action) => {
      const acting = 'server' in action ? state.raft.servers[action.server] : undefined;
      if (action.type === 'Heartbeat' && acting?.role === 'candidate') return null;
      return model.next(state, action);
    },
  };
}

test('candidates that never ask for votes violate LeaderElected: s1 times out, stutters', () => {
  const model = mute(createRaftLivenessModel(small, livenessBudgets)) as AnyModel;
  const result = checkLiveness(model);
  assert.is(result.result, 'violation');
  assert.is(result.property, 'LeaderElected');
  // By hand: the initial state has no leader; s1's lone timeout makes it a candidate that
  // could win (both others may vote for it), so no lone timeout follows, and with no vote
  // request sent no fair action is enabled: the behaviour stutters there forever.
  assert.equal(labels(model, result.lasso!.actionIndexes), ['Timeout(s1)']);
  assert.is(result.lasso!.loop, 1);
});

test('--preset liveness: its bounds and budgets, and the flags it refuses', () => {
  const params = resolveParams(raftDefinition, undefined, { preset: 'liveness' });
  const model = raftDefinition.create(params, undefined);
  assert.equal(
    model.properties!.map((property) => property.name),
    ['LeaderElected', 'ValueCommitted'],
  );
  assert.equal(livenessRaftBounds, {
    maxTerm: 3,
    maxLog: 2,
    maxMsgs: 1,
    maxRestarts: 1,
    maxCompactions: 0,
    maxReads: 0,
  });
  assert.equal(livenessBudgets, { maxDrops: 1, maxTimeouts: 1 });
  const refusedFlags: Record<string, string>[] = [
    { 'max-term': '4' },
    { symmetry: 'true' },
    { 'pre-vote': 'true' },
  ];
  for (const flags of refusedFlags) {
    const refused = resolveParams(raftDefinition, undefined, { preset: 'liveness', ...flags });
    assert.throws(() => raftDefinition.create(refused, undefined), (error: unknown) =>
      error instanceof UsageError);
  }
});

test.run();
