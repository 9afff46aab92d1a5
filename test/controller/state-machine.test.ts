// The controller's replicated state machine: configurations, Query, sessions (issue 4).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyCommand,
  applyRequest,
  canonicalCommand,
  copyConfigs,
  freezeConfig,
  initialControllerState,
  keepsFrozenHistory,
  keepsHistory,
  latestConfig,
  queryConfig,
  type ControllerRequest,
  type ControllerState,
} from '../../spec/controller/index.js';

function run(requests: readonly ControllerRequest[], shardCount = 10) {
  let state = initialControllerState(shardCount);
  const replies = requests.map((request) => {
    const before = copyConfigs(state.configs);
    const step = applyRequest(state, request);
    assert.ok(keepsHistory(before, step.state), `history kept by ${JSON.stringify(request)}`);
    state = step.state;
    return step.reply;
  });
  return { state, replies };
}

const join = (client: string, seq: number, gid: number): ControllerRequest =>
  ({ client, seq, command: { type: 'join', groups: { [gid]: [`g${gid}-0`] } } });

test('Join/Leave append one configuration each; Move one unless the owner is unchanged', () => {
  const { state, replies } = run([
    join('a', 1, 1),
    join('a', 2, 2),
    { client: 'a', seq: 3, command: { type: 'move', shard: 0, gid: 2 } },
    { client: 'a', seq: 4, command: { type: 'move', shard: 0, gid: 2 } },
    { client: 'a', seq: 5, command: { type: 'leave', gids: [1] } },
    { client: 'a', seq: 6, command: { type: 'query', num: 2 } },
  ]);
  assert.equal(state.configs.map((config) => config.num), [0, 1, 2, 3, 4]);
  assert.equal(state.configs[3]!.shards, [2, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
  const outcomes = replies.map((reply) => (reply.ok ? reply.value.num : reply.error));
  assert.equal(outcomes, [1, 2, 3, 3, 4, 2]);
  assert.equal(latestConfig(state).shards, Array(10).fill(2));
});

test('Query: -1 and past the end give the latest; other negatives are refused', () => {
  const { state } = run([join('a', 1, 1), join('a', 2, 2)]);
  assert.equal(queryConfig(state, -1), queryConfig(state, 2));
  assert.equal((queryConfig(state, 99) as { value: { num: number } }).value.num, 2);
  assert.equal((queryConfig(state, 0) as { value: { num: number } }).value.num, 0);
  assert.equal(queryConfig(state, -2), { ok: false, error: 'query: bad num -2' });
  assert.equal(queryConfig(state, 0.5), { ok: false, error: 'query: bad num 0.5' });
});

test('a refused request appends nothing and its refusal is the first result of a retry', () => {
  const { state, replies } = run([
    join('a', 1, 1),
    { client: 'b', seq: 1, command: { type: 'leave', gids: [2] } },
    join('b', 2, 2),
    { client: 'b', seq: 1, command: { type: 'leave', gids: [2] } },
  ]);
  assert.equal(replies.map((reply) => (reply.ok ? reply.value.num : reply.error)), [
    1,
    'leave: unknown gid 2 (not a member)',
    2,
    'stale: client b seq 1 < 2',
  ]);
  assert.is(state.configs.length, 3);
});

test('a retry gets the first reply, even after other clients changed the configuration', () => {
  const first = run([join('a', 7, 1)]);
  const later = applyRequest(first.state, join('b', 1, 2)).state;
  const retry = applyRequest(later, join('a', 7, 1));
  assert.is(retry.state, later);
  assert.is(retry.reply, first.replies[0]);
  assert.equal((retry.reply as { value: { num: number } }).value.num, 1);
});

test('the same (client, seq) with another request is an identity conflict', () => {
  const { state } = run([join('a', 3, 1)]);
  const conflict = applyRequest(state, join('a', 3, 2));
  assert.is(conflict.state, state);
  assert.equal(conflict.reply, {
    ok: false,
    error: 'identity-conflict: client a seq 3 was ["join",{"1":["g1-0"]}]',
  });
});

test('canonical requests: group key order and leave order do not matter', () => {
  const forward: Record<number, string[]> = {};
  forward[1] = ['x'];
  forward[2] = ['y'];
  const backward: Record<number, string[]> = {};
  backward[2] = ['y'];
  backward[1] = ['x'];
  const forwardText = canonicalCommand({ type: 'join', groups: forward });
  assert.is(forwardText, canonicalCommand({ type: 'join', groups: backward }));
  assert.is(canonicalCommand({ type: 'leave', gids: [3, 1] }), '["leave",[1,3]]');
  const { state } = run([{ client: 'a', seq: 1, command: { type: 'join', groups: forward } }]);
  const command = { type: 'join', groups: backward } as const;
  const retry = applyRequest(state, { client: 'a', seq: 1, command });
  assert.is(retry.state, state);
});

test('HistoryImmutable (keepsHistory) catches a rewrite and a dropped configuration', () => {
  const { state } = run([join('a', 1, 1), join('a', 2, 2)]);
  const before = copyConfigs(state.configs);
  const rewritten: ControllerState = {
    ...state,
    configs: state.configs.map((config, num) =>
      num === 1 ? { ...config, shards: config.shards.map(() => 2) } : config),
  };
  assert.is(keepsHistory(before, rewritten), false);
  assert.is(keepsHistory(before, { ...state, configs: state.configs.slice(1) }), false);
  const skipped = applyCommand(state, { type: 'join', groups: { 3: ['c'] } }).state;
  assert.is(keepsHistory(before, skipped), true);
  const renumberedConfig = { ...latestConfig(skipped), num: 9 };
  const renumbered = { ...skipped, configs: [...state.configs, renumberedConfig] };
  assert.is(keepsHistory(before, renumbered), false);
  const twoMore = applyCommand(skipped, { type: 'join', groups: { 4: ['d'] } }).state;
  assert.is(keepsHistory(before, twoMore), false);
});

test('an in-place mutation is visible against the copy taken before the step', () => {
  const { state } = run([join('a', 1, 1)]);
  const before = copyConfigs(state.configs);
  (state.configs[1]!.shards as number[])[0] = 0;
  assert.is(keepsHistory(before, state), false);
});

test('keepsFrozenHistory: frozen configurations kept by identity; a write in place throws', () => {
  const { state } = run([join('a', 1, 1)]);
  assert.throws(() => keepsFrozenHistory(state, state), /not frozen/);
  const frozen: ControllerState = { ...state, configs: state.configs.map(freezeConfig) };
  const next = applyCommand(frozen, { type: 'join', groups: { 2: ['b'] } }).state;
  assert.is(keepsFrozenHistory(frozen, next), true);
  assert.is(keepsFrozenHistory(frozen, frozen), true);
  const replaced = { ...next, configs: [frozen.configs[0]!, { ...frozen.configs[1]! }] };
  assert.is(keepsFrozenHistory(frozen, replaced), false);
  assert.is(keepsFrozenHistory(frozen, { ...frozen, configs: [] }), false);
  assert.throws(() => {
    (frozen.configs[1]!.shards as number[])[0] = 0;
  }, TypeError);
  assert.throws(() => {
    (frozen.configs[1]!.groups[1] as string[]).push('x');
  }, TypeError);
});

test.run();
