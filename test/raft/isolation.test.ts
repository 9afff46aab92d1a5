// The isolation of `--preset liveness-9.6` (models/raft/liveness.ts): from Isolate(i) on, the
// network loses every message from or to server i and its clients reach it no more. At two
// servers (leader-never-steps-down's bounds) the correct code keeps every property: with one
// server cut off no quorum is left, so LeaderElected and ValueCommitted ask nothing more.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkLiveness } from '../../checker/liveness.js';
import type { AnyModel, Model } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { raftDefinition } from '../../models/raft/index.js';
import {
  leaderOfHighestTerm,
  loneTimeout,
  type LivenessAction,
  type LivenessState,
} from '../../models/raft/liveness.js';

const twoServers = () => {
  const params = resolveParams(raftDefinition, undefined,
    { preset: 'liveness-9.6', servers: '2' });
  return raftDefinition.create(params, undefined) as Model<LivenessState, LivenessAction>;
};

test('liveness-9.6 at two servers: the correct code keeps all three properties', () => {
  const result = checkLiveness(twoServers() as AnyModel);
  assert.is(result.result, 'ok');
  assert.equal(result.properties, ['LeaderElected', 'ValueCommitted', 'LeaderStepsDown']);
  assert.is(result.distinctStates, 1557);
});

test('after Isolate(s1) its sends are lost and its clients cut off; s2 still acts', () => {
  const model = twoServers();
  let state = model.initialStates()[0]!;
  const run = (action: LivenessAction) => {
    const next = model.next(state, action);
    assert.ok(next !== null, model.label!(action));
    state = next;
  };
  run({ type: 'Timeout', server: 0 });
  run({ type: 'Heartbeat', server: 0, peer: 1 });
  assert.is(state.raft.messages.length, 1, 'the pre-vote request is in flight');
  run({ type: 'Isolate', server: 0 });
  assert.is(state.raft.messages.length, 0, 'what was in flight to s2 is lost');
  assert.is(model.next(state, { type: 'ClientRequest', server: 0, value: 0 }), null);
  run({ type: 'Timeout', server: 1 });
  const asked = model.next(state, { type: 'Heartbeat', server: 1, peer: 0 });
  assert.equal(asked, state, 'the pre-vote request to s1 is lost: nothing changes');
});

test('an isolated leader counts for nobody: the others time out alone (lone timeout)', () => {
  const initial = twoServers().initialStates()[0]!.raft;
  const [s1, s2] = initial.servers;
  const raft = { ...initial,
    servers: [{ ...s1!, role: 'leader' as const, currentTerm: 1 }, { ...s2!, currentTerm: 1 }] };
  assert.ok(leaderOfHighestTerm(raft));
  assert.is(leaderOfHighestTerm(raft, 0), false);
  assert.is(loneTimeout(raft, 1), false, 's1 leads term 1 and is heard');
  assert.is(loneTimeout(raft, 1, 0), true, 's1 leads term 1, cut off');
  assert.is(loneTimeout(raft, 0, 0), false, 'the isolated server is never woken');
});

test.run();
