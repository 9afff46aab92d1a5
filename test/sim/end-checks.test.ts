// What the simulator checks once the cluster has settled (DESIGN §3 liveness: every recorded
// configuration is published, and served by its owners), and how catalog bug names become
// the servers' switches (`--bug NAME`).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialControllerState } from '../../spec/controller/state-machine.js';
import type { Config } from '../../spec/controller/types.js';
import { emptyGroup, withShard, type GroupState } from '../../spec/group/index.js';
import { serverBugsFor, simulatorBugNames } from '../../verify/simulate/bugs.js';
import { checkSettled } from '../../verify/simulate/liveness-checks.js';

const shardCount = 4;

function controllerWith(shards: number[], current: number) {
  const base = initialControllerState(shardCount);
  const config: Config = { num: 1, shards, groups: { 100: ['g100-0'] } };
  return { ...base, configs: [base.configs[0]!, config], current };
}

function servingGroup(gid: number, ...shards: number[]): GroupState {
  let state = emptyGroup(gid, shardCount);
  for (const shard of shards) {
    state = withShard(state, shard, { ...state.shards[shard]!, phase: 'serving' });
  }
  return state;
}

test('settled: the latest configuration is published and its owners serve their shards', () => {
  const groups = new Map([[100, servingGroup(100, 0, 1, 2)]]);
  assert.is(checkSettled(controllerWith([100, 100, 100, 0], 1), groups, 2_000), null);
  assert.equal(checkSettled(controllerWith([100, 100, 100, 0], 0), groups, 2_000), {
    invariant: 'Liveness',
    detail: 'configuration 1 is recorded but only 0 is published 2000 ms after the last ' +
      'request; no move is in flight',
  });
  assert.equal(checkSettled(controllerWith([100, 100, 100, 100], 1), groups, 2_000), {
    invariant: 'PublishedServed',
    detail: 'shard 3 does not move, but its owner gid 100 in configuration 1 holds it ' +
      'absent, 2000 ms after the last request',
  });
  assert.is(checkSettled(null, groups, 2_000)!.invariant, 'Liveness');
  const stuck = {
    ...controllerWith([100, 100, 100, 101], 0),
    next: { num: 1, moves: [{ shard: 3, epoch: 1, src: 100, dst: 101 }] },
  };
  assert.match(checkSettled(stuck, groups, 2_000)!.detail,
    /; in flight to 1: shard 3 100 -> 101 \(src absent, dst unknown\)$/);
});

test('--bug: a catalog name switches on its own layer\'s switch, by the same name', () => {
  assert.equal(serverBugsFor('vote-ignores-log'), { raft: { 'vote-ignores-log': true } });
  assert.equal(serverBugsFor('skip-freeze'), { migration: { 'skip-freeze': true } });
  assert.equal(serverBugsFor('skip-config'), { controller: { 'skip-config': true } });
  assert.is(serverBugsFor('no-such-bug'), undefined);
  for (const name of ['skip-freeze', 'dedup-not-migrated', 'accept-stale-epoch',
    'delete-before-receipt', 'vote-ignores-log', 'commit-prev-term', 'non-minimal-rebalance']) {
    assert.ok(simulatorBugNames.includes(name), name);
  }
});

test.run();
