// The controller's replicated state machine: configurations, Query, sessions (issue 4).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyControllerCommand,
  applyOperation,
  canonicalOperation,
  initialControllerState,
  latestConfig,
  publishesConfig,
  queryConfig,
  type ClientCommand,
  type ControllerCommandResult,
  type ControllerState,
} from '../../spec/controller/index.js';
import {
  copyConfigs,
  freezeConfig,
  keepsFrozenHistory,
  keepsHistory,
} from '../../invariants/config-history.js';

function run(requests: readonly ClientCommand[], shardCount = 10) {
  let state = initialControllerState(shardCount);
  const replies = requests.map((request) => {
    const before = copyConfigs(state.configs);
    const step = applyControllerCommand(state, request);
    assert.ok(keepsHistory(before, step.state), `history kept by ${JSON.stringify(request)}`);
    state = step.state;
    return step.result;
  });
  return { state, replies };
}

const join = (client: string, seq: number, gid: number): ClientCommand =>
  ({ client, seq, type: 'join', groups: { [gid]: [`g${gid}-0`] } });
const outcome = (result: ControllerCommandResult) =>
  result.type === 'config' ? result.config.num : result.type === 'refused' ? result.error : null;
const numOf = (result: ControllerCommandResult) =>
  result.type === 'config' ? result.config.num : null;

test('Join/Leave append one configuration each; Move one unless the owner is unchanged', () => {
  const { state, replies } = run([
    join('a', 1, 1),
    join('a', 2, 2),
    { client: 'a', seq: 3, type: 'move', shard: 0, gid: 2 },
    { client: 'a', seq: 4, type: 'move', shard: 0, gid: 2 },
    { client: 'a', seq: 5, type: 'leave', gids: [1] },
    { client: 'a', seq: 6, type: 'query', num: 2 },
  ]);
  assert.equal(state.configs.map((config) => config.num), [0, 1, 2, 3, 4]);
  assert.equal(state.configs[3]!.shards, [2, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
  assert.equal(replies.map(outcome), [1, 2, 3, 3, 4, 2]);
  assert.equal(latestConfig(state).shards, Array(10).fill(2));
});

test('Query: -1 and past the end give the latest; other negatives are refused', () => {
  const { state } = run([join('a', 1, 1), join('a', 2, 2)]);
  assert.equal(queryConfig(state, -1), queryConfig(state, 2));
  assert.equal(numOf(queryConfig(state, 99)), 2);
  assert.equal(numOf(queryConfig(state, 0)), 0);
  assert.equal(queryConfig(state, -2), { type: 'refused', error: 'query: bad num -2' });
  assert.equal(queryConfig(state, 0.5), { type: 'refused', error: 'query: bad num 0.5' });
});

test('a refused request appends nothing and its refusal is the first result of a retry', () => {
  const { state, replies } = run([
    join('a', 1, 1),
    { client: 'b', seq: 1, type: 'leave', gids: [2] },
    join('b', 2, 2),
    { client: 'b', seq: 1, type: 'leave', gids: [2] },
  ]);
  assert.equal(replies.map(outcome), [
    1,
    'leave: unknown gid 2 (not a member)',
    2,
    'stale: client b seq 1 < 2',
  ]);
  assert.is(state.configs.length, 3);
});

test('a retry gets the first reply, even after other clients changed the configuration', () => {
  const first = run([join('a', 7, 1)]);
  const later = applyControllerCommand(first.state, join('b', 1, 2)).state;
  const retry = applyControllerCommand(later, join('a', 7, 1));
  assert.is(retry.state, later);
  assert.equal(retry.result, first.replies[0]);
  assert.equal(numOf(retry.result), 1);
});

test('the same (client, seq) with another request is an identity conflict', () => {
  const { state } = run([join('a', 3, 1)]);
  const conflict = applyControllerCommand(state, join('a', 3, 2));
  assert.is(conflict.state, state);
  assert.equal(conflict.result, {
    type: 'refused',
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
  const forwardText = canonicalOperation({ type: 'join', groups: forward });
  assert.is(forwardText, canonicalOperation({ type: 'join', groups: backward }));
  assert.is(canonicalOperation({ type: 'leave', gids: [3, 1] }), '["leave",[1,3]]');
  const { state } = run([{ client: 'a', seq: 1, type: 'join', groups: forward }]);
  const again = { client: 'a', seq: 1, type: 'join', groups: backward } as const;
  const retry = applyControllerCommand(state, again);
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
  const skipped = applyOperation(state, { type: 'join', groups: { 3: ['c'] } }).state;
  assert.is(keepsHistory(before, skipped), true);
  const renumberedConfig = { ...latestConfig(skipped), num: 9 };
  const renumbered = { ...skipped, configs: [...state.configs, renumberedConfig] };
  assert.is(keepsHistory(before, renumbered), false);
  const twoMore = applyOperation(skipped, { type: 'join', groups: { 4: ['d'] } }).state;
  assert.is(keepsHistory(before, twoMore), false);
});

// Without a session: immer freezes what a client command records (the result's configuration
// included), and these two tests need a configuration that can still be written in place.
const joinedOne = () =>
  applyOperation(initialControllerState(10), { type: 'join', groups: { 1: ['g1-0'] } }).state;

test('a session result is frozen (immer): a client cannot change what retries get', () => {
  const { state } = run([join('a', 1, 1)]);
  assert.ok(Object.isFrozen(state.sessions['a']!.result));
  assert.throws(() => {
    (state.configs[1]!.shards as number[])[0] = 0;
  }, TypeError);
});

test('an in-place mutation is visible against the copy taken before the step', () => {
  const state = joinedOne();
  const before = copyConfigs(state.configs);
  (state.configs[1]!.shards as number[])[0] = 0;
  assert.is(keepsHistory(before, state), false);
});

test('keepsFrozenHistory: frozen configurations kept by identity; a write in place throws', () => {
  const state = joinedOne();
  assert.throws(() => keepsFrozenHistory(state, state), /not frozen/);
  const frozen: ControllerState = { ...state, configs: state.configs.map(freezeConfig) };
  const next = applyOperation(frozen, { type: 'join', groups: { 2: ['b'] } }).state;
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

// Raft dissertation §6.3: session ids come from the log, so every replica issues the same.
test('a configuration is published once current reaches it (what the clerk polls for)', () => {
  const joined = run([join('a', 1, 1), { client: 'a', seq: 2, type: 'query', num: 0 }]);
  const replies = joined.replies;
  let state = joined.state;
  assert.is(publishesConfig(state, replies[0]!), false, 'a Join\'s new configuration is not');
  assert.is(publishesConfig(state, replies[1]!), true, 'configuration 0 always is');
  state = applyControllerCommand(state, { type: 'plan', num: 1 }).state;
  const published = applyControllerCommand(state, { type: 'publish', num: 1 });
  assert.is(publishesConfig(published.state, replies[0]!), true);
  assert.is(publishesConfig(published.state, published.result), false, 'not a configuration');
});

test('register-client issues session ids 0, 1, 2... in log order', () => {
  let state = initialControllerState(3);
  const issued: unknown[] = [];
  for (let count = 0; count < 3; count++) {
    const step = applyControllerCommand(state, { type: 'register-client' });
    issued.push(step.result);
    state = step.state;
  }
  assert.equal(issued, [0, 1, 2].map((client) => ({ type: 'registered', client })));
  assert.is(state.nextClient, 3);
  assert.is(state.configs.length, 1);
});

test('apply never throws on a malformed command: it refuses and changes nothing', () => {
  const state = initialControllerState(3);
  const malformed: unknown[] = [
    null,
    { type: 'unknown' },
    { type: 'join', client: 'a', seq: -1, groups: { 1: ['x'] } },
    { type: 'join', client: 7, seq: 1, groups: { 1: ['x'] } },
    { type: 'plan', num: 'one' },
    { type: 'join', client: 'a', seq: 1, groups: null },
    { type: 'leave', client: 'a', seq: 1, gids: 3 },
    { type: 'publish', num: 1 },
  ];
  for (const command of malformed) {
    const step = applyControllerCommand(state, command as ClientCommand);
    assert.is(step.result.type, 'refused', JSON.stringify(command));
    assert.is(step.state, state);
  }
});

test.run();
