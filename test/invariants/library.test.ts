// The one invariant library (issue 20 item 4): the views a run's tools build agree with the
// model's, so the same predicate gives the same verdict and the same witness on both.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { explainElectionSafety, electionSafety } from '../../invariants/raft-elections.js';
import { CommittedRecord, ElectionRecord, LatestGroupStates } from '../../invariants/run-views.js';
import { holderOf } from '../../invariants/shard-view.js';
import { raftInvariants } from '../../models/raft/invariants.js';
import { defaultRaftBounds } from '../../models/raft/index.js';
import { initialModelState } from '../../models/raft/model.js';
import { serverName } from '../../models/raft/printing.js';
import { emptyGroup, withShard, type GroupState } from '../../spec/group/index.js';

test('ElectionSafety (Raft §5.2): a run\'s election record is the model\'s view', () => {
  const state = { ...initialModelState(defaultRaftBounds), elected: [0, 0b001, 0b101] };
  const model = raftInvariants.find((invariant) => invariant.name === 'ElectionSafety')!;
  assert.is(model.holds(state), false);
  assert.is(model.explain!(state), 's1 and s3 both became leader in term 2');
  // The same elections seen one leader at a time, servers numbered by first sight.
  const record = new ElectionRecord();
  assert.ok(record.note(1, 's1'));
  assert.ok(record.note(2, 's1'));
  assert.not.ok(record.note(2, 's3'));
  // s1 is server 0 and s3 server 1 of the record: the masks are of first-sight numbers.
  assert.equal(Array.from(record.elected, (mask) => mask ?? 0), [0, 0b001, 0b011]);
  assert.is(electionSafety(record), false);
  assert.is(record.explain(), 's1 and s3 both became leader in term 2');
  assert.is(explainElectionSafety(state, serverName), record.explain());
  assert.is(record.termsWithLeader, 2);
});

test('StateMachineSafety (Raft §5.4.3): the first entry seen at an index is the one compared',
  () => {
    const record = new CommittedRecord<string>();
    assert.is(record.note(3, { term: 2, command: 'a', server: 'n0' }), null);
    assert.is(record.note(3, { term: 2, command: 'a', server: 'n1' }), null);
    assert.equal(record.note(3, { term: 2, command: 'b', server: 'n2' }),
      { term: 2, command: 'a', server: 'n0' });
    assert.equal(record.note(3, { term: 4, command: 'a', server: 'n2' })?.server, 'n0');
  });

const serving = (gid: number, shard: number, epoch: number): GroupState => {
  const state = emptyGroup(gid, 2);
  const identity = { shard, epoch, src: 0, dst: gid };
  return withShard(state, shard, { ...state.shards[shard]!, phase: 'serving', identity });
};

test('LatestGroupStates: only a newer applied index replaces a group\'s state', () => {
  const latest = new LatestGroupStates<GroupState>();
  const first = { appliedIndex: 5, replica: 'g1-0', state: serving(1, 0, 2) };
  assert.is(latest.offer(first), null);
  assert.is(latest.offer({ appliedIndex: 5, replica: 'g1-1', state: serving(1, 1, 3) }),
    undefined);
  assert.is(latest.offer({ appliedIndex: 6, replica: 'g1-1', state: serving(1, 1, 3) }), first);
  assert.equal(latest.states().map(({ replica }) => replica), ['g1-1']);
});

test('holderOf: a serving copy over a frozen one, the newest epoch among frozen ones', () => {
  const frozen = (gid: number, epoch: number) => {
    const state = serving(gid, 0, epoch);
    return withShard(state, 0, { ...state.shards[0]!, phase: 'frozen' });
  };
  assert.is(holderOf([frozen(1, 3), frozen(2, 4)], 0)?.gid, 2);
  assert.is(holderOf([frozen(1, 5), serving(2, 0, 4)], 0)?.gid, 2);
  assert.is(holderOf([emptyGroup(1, 2)], 0), null);
});

test.run();
