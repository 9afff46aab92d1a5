// conform's check (c) on hand-made observations: each global invariant caught where it
// first fails along the merge by Lamport clock, and a clean merge passing. The texts are the
// library's witnesses (invariants/), in conform's names for nodes and entries.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkGlobalInvariants } from '../../verify/conform/global-invariants.js';
import type { Observation } from '../../verify/conform/observation.js';

/** A group's records of two shards: `shards` served, the others absent; identities by epoch. */
const served = (node: string, lamport: number, gid: number, appliedIndex: number,
  shards: number[], epochs: (number | null)[] = [null, null]): Observation => ({
  node, seq: lamport, lamport, kind: 'served', gid, appliedIndex,
  shards: epochs.map((epoch, shard) => ({
    phase: shards.includes(shard) ? 'serving' : 'absent',
    identity: epoch === null ? null : { epoch, src: 101, dst: gid },
  })),
});

test('ElectionSafety (Raft §5.2): two leaders of one term in one group', () => {
  const found = checkGlobalInvariants([
    { node: 'g100-0', seq: 4, lamport: 9, kind: 'leader', group: 'g100', term: 2 },
    { node: 'g101-1', seq: 3, lamport: 5, kind: 'leader', group: 'g101', term: 2 },
    { node: 'g100-2', seq: 7, lamport: 12, kind: 'leader', group: 'g100', term: 2 },
  ]);
  assert.equal(found, {
    check: 'invariant', what: 'ElectionSafety: g100-0 and g100-2 both became leader in term 2',
    node: 'g100-2', step: 7, lamport: 12,
  });
});

test('StateMachineSafety (Raft §5.4.3): two entries applied at one index', () => {
  const applied = (node: string, lamport: number, term: number): Observation => ({
    node, seq: lamport, lamport, kind: 'applied', group: 'ctl', index: 5, term,
    commandDigest: 'aaaa',
  });
  const found = checkGlobalInvariants([applied('ctl-0', 3, 1), applied('ctl-1', 4, 1),
    applied('ctl-2', 8, 2)]);
  assert.is(found?.what, 'StateMachineSafety: ctl-2 has committed index 5 holding ' +
    '(term 2, command aaaa), where (term 1, command aaaa) was applied first, by ctl-0');
});

test('AtMostOneServer merges by Lamport clock: a handover in order passes, out of it fails', () => {
  // Group 100 freezes shard 0 (index 7) before group 101 starts serving it (index 3).
  const handover = [served('g100-0', 2, 100, 5, [0]), served('g100-0', 6, 100, 7, []),
    served('g101-0', 9, 101, 3, [0])];
  assert.is(checkGlobalInvariants([...handover].reverse()), null);
  // A lagging replica of 100 (index 6, still serving) changes nothing: 7 was merged first.
  assert.is(checkGlobalInvariants([...handover, served('g100-1', 10, 100, 6, [0])]), null);
  const overlap = [served('g100-0', 2, 100, 5, [0]), served('g101-0', 4, 101, 3, [0]),
    served('g100-0', 6, 100, 7, [])];
  assert.is(checkGlobalInvariants(overlap)?.what,
    'AtMostOneServer: shard 0 is served by gid 100 and gid 101');
});

test('ReplicaAgreement (issue 26): two replicas with different states at one applied index', () => {
  const state = (node: string, lamport: number, index: number, digest: string): Observation =>
    ({ node, seq: lamport, lamport, kind: 'state', group: 'g100', index, digest });
  // Replicas at different indexes hold different states; at the same index, the same.
  assert.is(checkGlobalInvariants([state('g100-0', 1, 4, 'aa'), state('g100-1', 2, 5, 'bb'),
    state('g100-2', 3, 4, 'aa')]), null);
  const found = checkGlobalInvariants([state('g100-0', 1, 4, 'aa'), state('g100-2', 3, 4, 'cc')]);
  assert.is(found?.what, 'ReplicaAgreement: g100: g100-2 holds state cc at applied index 4, ' +
    'g100-0 held aa there');
  assert.is(found?.node, 'g100-2');
});

test('StaleRejected: a group\'s epoch for a shard never goes down', () => {
  const found = checkGlobalInvariants([served('g100-0', 2, 100, 5, [], [3, null]),
    served('g100-1', 5, 100, 6, [], [2, null])]);
  assert.is(found?.what, 'StaleRejected: group 100 went back for shard 0 from ' +
    'epoch 3 (101 -> 100), absent to epoch 2 (101 -> 100), absent');
});

test('ConfigsInOrder: an intent in flight is for current + 1', () => {
  const intent = (lamport: number, current: number, next: number | null): Observation =>
    ({ node: 'ctl-0', seq: lamport, lamport, kind: 'intent', current, next });
  assert.is(checkGlobalInvariants([intent(1, 0, 1), intent(2, 1, null)]), null);
  assert.is(checkGlobalInvariants([intent(1, 0, 2)])?.what,
    'ConfigsInOrder: ctl-0 plans configuration 2 while configuration 0 is current');
});

test.run();
