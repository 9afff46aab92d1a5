// The controller's configuration operations and rebalancing (issue 4).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  initialConfig,
  joinConfig,
  leaveConfig,
  minimumMoves,
  moveConfig,
  movedShards,
  rebalance,
  rebalanceFromScratch,
  type Config,
  type ControllerResult,
} from '../../spec/controller/index.js';

function value<T>(result: ControllerResult<T>): T {
  if (!result.ok) throw new Error(`unexpected refusal: ${result.error}`);
  return result.value;
}

function error<T>(result: ControllerResult<T>): string {
  assert.is(result.ok, false);
  return (result as { error: string }).error;
}

const counts = (config: Config) => {
  const held: Record<number, number> = {};
  for (const gid of config.shards) held[gid] = (held[gid] ?? 0) + 1;
  return held;
};

test('initialConfig: num 0, every shard unassigned, no groups', () => {
  assert.equal(initialConfig(10), { num: 0, shards: Array(10).fill(0), groups: {} });
  assert.throws(() => initialConfig(0), /bad shard count 0/);
});

test('joining gids 1, 2, 3 one at a time with 10 shards: {4,3,3}, 5 then 3 shards moved', () => {
  const config0 = initialConfig(10);
  const config1 = value(joinConfig(config0, { 1: ['a'] }));
  assert.equal(config1.shards, Array(10).fill(1));
  assert.is(movedShards(config0.shards, config1.shards), 10);
  const config2 = value(joinConfig(config1, { 2: ['b'] }));
  assert.equal(config2.shards, [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
  assert.is(movedShards(config1.shards, config2.shards), 5);
  assert.is(minimumMoves(config1.shards, [1, 2]), 5);
  const config3 = value(joinConfig(config2, { 3: ['c'] }));
  assert.equal(counts(config3), { 1: 4, 2: 3, 3: 3 });
  assert.equal(config3.shards, [1, 1, 1, 1, 3, 2, 2, 2, 3, 3]);
  assert.is(movedShards(config2.shards, config3.shards), 3);
  assert.is(minimumMoves(config2.shards, [1, 2, 3]), 3);
  assert.equal([config1.num, config2.num, config3.num], [1, 2, 3]);
  assert.equal(config3.groups, { 1: ['a'], 2: ['b'], 3: ['c'] });
});

test('join of several groups at once, and the inputs are never modified', () => {
  const config0 = Object.freeze(initialConfig(10));
  const groups = Object.freeze({ 7: ['x'], 2: ['y'], 5: ['z'] });
  const config1 = value(joinConfig(config0, groups));
  assert.equal(counts(config1), { 2: 4, 5: 3, 7: 3 });
  assert.equal(config0.shards, Array(10).fill(0));
  assert.equal(config0.groups, {});
  assert.equal(Object.keys(config1.groups), ['2', '5', '7']);
});

test('leave: the leaving group\'s shards go to the groups with the fewest', () => {
  let config = initialConfig(10);
  config = value(joinConfig(config, { 1: ['a'] }));
  config = value(joinConfig(config, { 2: ['b'] }));
  config = value(joinConfig(config, { 3: ['c'] }));
  // {1: 4, 2: 3, 3: 3}; gid 1 leaves: 4 shards, two each to 2 and 3 -> {5, 5}.
  const left = value(leaveConfig(config, [1]));
  assert.equal(counts(left), { 2: 5, 3: 5 });
  assert.is(movedShards(config.shards, left.shards), 4);
  assert.equal(left.groups, { 2: ['b'], 3: ['c'] });
  // Leaving the last groups unassigns every shard.
  const empty = value(leaveConfig(left, [3, 2]));
  assert.equal(empty.shards, Array(10).fill(0));
  assert.equal(empty.groups, {});
  assert.is(empty.num, 5);
});

test('more groups than shards: the extra groups get none', () => {
  const groups = { 1: ['a'], 2: ['b'], 3: ['c'], 4: ['d'], 5: ['e'] };
  const config = value(joinConfig(initialConfig(3), groups));
  assert.equal(config.shards, [1, 2, 3]);
  const after = value(leaveConfig(config, [2]));
  // Shard 1 is free; gids 4 and 5 hold none, the smaller gid takes it.
  assert.equal(after.shards, [1, 4, 3]);
});

test('move: pins one shard; a move to the current owner makes no configuration', () => {
  const config = value(joinConfig(initialConfig(4), { 1: ['a'], 2: ['b'] }));
  // Free shards go one by one to the group with the fewest, ties to the smaller gid.
  assert.equal(config.shards, [1, 2, 1, 2]);
  const moved = value(moveConfig(config, 0, 2));
  assert.equal(moved, { num: 2, shards: [2, 2, 1, 2], groups: config.groups });
  assert.is(value(moveConfig(config, 0, 1)), null);
  assert.equal(config.shards, [1, 2, 1, 2]);
});

test('refusals are one-line reasons', () => {
  const config = value(joinConfig(initialConfig(4), { 1: ['a'] }));
  assert.is(error(joinConfig(config, {})), 'join: no groups given');
  assert.is(error(joinConfig(config, { 1: ['a'] })), 'join: gid 1 is already a member');
  const notPositive = (operation: string, gid: number) =>
    `${operation}: gid ${gid} is not positive (gid 0 means unassigned)`;
  assert.is(error(joinConfig(config, { 0: ['a'] })), notPositive('join', 0));
  assert.is(error(joinConfig(config, { [-3]: ['a'] })), notPositive('join', -3));
  assert.is(error(joinConfig(config, { 2: [] })), 'join: gid 2 has no servers');
  const notInteger = (key: string) => `join: gid '${key}' is not an integer`;
  assert.is(error(joinConfig(config, { '02': ['a'] } as never)), notInteger('02'));
  assert.is(error(joinConfig(config, { x: ['a'] } as never)), notInteger('x'));
  assert.is(error(joinConfig(config, { 1.5: ['a'] })), 'join: gid 1.5 is not an integer');
  assert.is(error(leaveConfig(config, [])), 'leave: no gids given');
  assert.is(error(leaveConfig(config, [2])), 'leave: unknown gid 2 (not a member)');
  assert.is(error(leaveConfig(config, [1, 1])), 'leave: gid 1 listed twice');
  assert.is(error(leaveConfig(config, [0])), notPositive('leave', 0));
  assert.is(error(leaveConfig(config, [1.5])), 'leave: gid 1.5 is not an integer');
  assert.is(error(moveConfig(config, 4, 1)), 'move: shard 4 out of range 0..3');
  assert.is(error(moveConfig(config, -1, 1)), 'move: shard -1 out of range 0..3');
  assert.is(error(moveConfig(config, 0, 2)), 'move: unknown gid 2 (not a member)');
  assert.is(error(moveConfig(config, 0, 0)), notPositive('move', 0));
});

test('rebalance: the order of the gids does not matter; bad gids are assertions', () => {
  const shards = [3, 3, 3, 3, 1, 0, 9, 9, 2, 2];
  const expected = rebalance(shards, [1, 2, 3, 4]);
  assert.equal(rebalance(shards, [4, 3, 2, 1]), expected);
  assert.equal(rebalance(shards, [2, 4, 1, 3]), expected);
  assert.equal(expected, [3, 3, 3, 4, 1, 1, 4, 2, 2, 2]);
  assert.is(movedShards(shards, expected), minimumMoves(shards, [1, 2, 3, 4]));
  assert.equal(rebalance(shards, []), Array(10).fill(0));
  assert.throws(() => rebalance(shards, [1, 1]), /gid 1 listed twice/);
  assert.throws(() => rebalance(shards, [0]), /gid 0 is not a positive integer/);
});

test('the from-scratch bug rebalances correctly but moves too much', () => {
  const config2 = [1, 1, 1, 1, 1, 2, 2, 2, 2, 2];
  const scratch = rebalanceFromScratch(config2, [1, 2, 3]);
  assert.equal(scratch, [1, 2, 3, 1, 2, 3, 1, 2, 3, 1]);
  assert.is(movedShards(config2, scratch), 7);
  assert.is(minimumMoves(config2, [1, 2, 3]), 3);
});

test.run();
