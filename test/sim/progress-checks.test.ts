// Issue 26 item 1: the progress checks' parts, on hand-made views and configurations (the
// whole runs are in planted-faults.test.ts and seeds.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerView } from '../../impl/node/api.js';
import { initialControllerState } from '../../spec/controller/state-machine.js';
import type { RaftNode } from '../../spec/raft/types.js';
import {
  checkOperationsComplete, checkProbeTokens, LeaderWatch, probeRequest, probeToken,
  progressBounds,
} from '../../verify/simulate/progress-checks.js';

const controller = (name: string, role: 'leader' | 'follower', term: number): ServerView => ({
  kind: 'controller', name, appliedIndex: 0, state: initialControllerState(4),
  raft: { role, currentTerm: term } as unknown as RaftNode<unknown, unknown>,
});

test('LeaderWatch: a leader of the highest term counts, a deposed one does not', () => {
  const watch = new LeaderWatch(['controller']);
  watch.observe([controller('ctl-0', 'leader', 1), controller('ctl-1', 'follower', 2)], 100);
  assert.not.ok(watch.allLed());
  assert.equal(watch.check(0), {
    invariant: 'LeaderAfterHeal',
    detail: `the controller group has no leader ${progressBounds.leaderAfterHealMs} ms after ` +
      'the faults were repaired',
  });
  watch.observe([controller('ctl-1', 'leader', 2)], 7_000);
  assert.ok(watch.allLed());
  assert.match(watch.check(0)!.detail, /had no leader until 7000 ms/);
  assert.is(watch.check(2_000), null);
});

test('probeRequest: a Move that changes an owner, or a Join when one group is a member', () => {
  const groups = { 100: ['g100-0'], 101: ['g101-0'] };
  assert.equal(probeRequest({ num: 3, shards: [100, 101], groups }, [100, 101, 102], [0]),
    { type: 'move', shard: 0, gid: 101 });
  assert.equal(probeRequest({ num: 1, shards: [100, 100], groups: { 100: ['g100-0'] } },
    [100, 101], [1]), { type: 'join', gid: 101 });
});

test('OperationsComplete and the probe tokens', () => {
  assert.is(checkOperationsComplete(95, 5), null);
  assert.is(checkOperationsComplete(94, 6)?.invariant, 'OperationsComplete');
  assert.is(checkOperationsComplete(0, 0)?.invariant, 'OperationsComplete');
  const values = new Map([['a', `x${probeToken(0)}`], ['b', `${probeToken(1)}${probeToken(1)}`]]);
  assert.is(checkProbeTokens(1, ['a', 'b'], values), null);
  assert.match(checkProbeTokens(2, ['a', 'b'], values)!.detail,
    /key "b" holds the acknowledged probe <c1.probe> 2 times/);
  // A probe the size policy refused must have written nothing.
  assert.is(checkProbeTokens(1, ['c'], values, new Set([0])), null);
  assert.match(checkProbeTokens(1, ['a'], values, new Set([0]))!.detail,
    /key "a" holds the refused probe <c0.probe> 1 times/);
});

test.run();
