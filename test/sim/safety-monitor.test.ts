// The simulator's per-event invariants on hand-built server views: ElectionSafety (Raft §5.2),
// StateMachineSafety (Raft §5.4.3), AtMostOneServer and ConfigsInOrder (DESIGN §3), each
// caught when broken and silent when not. The details are the library's witnesses (invariants/),
// the words `check` prints, with the group, replica and applied index the monitor saw.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialControllerState } from '../../spec/controller/state-machine.js';
import { emptyGroup, withShard, type GroupState } from '../../spec/group/index.js';
import { logEntriesOf } from '../../spec/raft/log-entries.js';
import { initialNode } from '../../spec/raft/node.js';
import type { Entry, RaftNode } from '../../spec/raft/types.js';
import type { ServerView } from '../../impl/node/api.js';
import { SafetyMonitor } from '../../verify/simulate/safety-monitor.js';

function raft(
  role: RaftNode<unknown, unknown>['role'],
  term: number,
  terms: readonly number[] = [],
  commitIndex = 0,
): RaftNode<unknown, unknown> {
  const log: Entry<unknown>[] = terms.map((entryTerm) => ({ term: entryTerm, command: null }));
  return { ...initialNode(0, 3), role, currentTerm: term, log: logEntriesOf(log), commitIndex };
}

function groupView(
  name: string,
  gid: number,
  appliedIndex: number,
  state: GroupState,
  node = raft('follower', 1),
): ServerView {
  return { kind: 'group', name, gid, raft: node, appliedIndex, state };
}

function serving(gid: number, ...shards: number[]): GroupState {
  let state = emptyGroup(gid, 10);
  for (const shard of shards) {
    state = withShard(state, shard, { ...state.shards[shard]!, phase: 'serving' });
  }
  return state;
}

test('ElectionSafety: two leaders of one term in one group are caught, even at different times',
  () => {
    const monitor = new SafetyMonitor();
    const leaderA = groupView('g100-0', 100, 0, serving(100), raft('leader', 3));
    const leaderB = groupView('g100-1', 100, 0, serving(100), raft('leader', 3));
    const otherGroup = groupView('g101-0', 101, 0, serving(101), raft('leader', 3));
    assert.is(monitor.observe([leaderA, otherGroup]), null);
    assert.is(monitor.observe([leaderA]), null);
    assert.equal(monitor.observe([leaderB]), {
      invariant: 'ElectionSafety',
      detail: 'g100: g100-0 and g100-1 both became leader in term 3',
    });
    assert.is(monitor.termsWithLeader(), 2);
  });

test('StateMachineSafety: a different term committed at an index is caught; uncommitted is not',
  () => {
    const monitor = new SafetyMonitor();
    const first = groupView('g100-0', 100, 0, serving(100), raft('leader', 2, [1, 2, 2], 2));
    // Index 3 differs but is not committed on g100-1: Raft may still overwrite it.
    const second = groupView('g100-1', 100, 0, serving(100), raft('follower', 3, [1, 2, 3], 2));
    assert.is(monitor.observe([first, second]), null);
    const committed = groupView('g100-2', 100, 0, serving(100), raft('leader', 3, [1, 3], 2));
    assert.equal(monitor.observe([committed]), {
      invariant: 'StateMachineSafety',
      detail: 'g100: g100-2 has committed index 2 holding an entry of term 3, where an entry ' +
        'of term 2 was committed before',
    });
  });

test('AtMostOneServer: the latest applied state of each group counts, not a lagging replica',
  () => {
    const monitor = new SafetyMonitor();
    // g100 served shard 7, then froze it at index 9 (state with nothing served).
    assert.is(monitor.observe([groupView('g100-0', 100, 5, serving(100, 7))]), null);
    assert.is(monitor.observe([groupView('g100-0', 100, 9, serving(100))]), null);
    // A lagging replica of g100 still shows index 5; g101 now serves shard 7: no violation.
    const lagging = groupView('g100-1', 100, 5, serving(100, 7));
    assert.is(monitor.observe([lagging, groupView('g101-0', 101, 4, serving(101, 7))]), null);
    assert.equal(monitor.groupStates().get(100)!.shards[7]!.phase, 'absent');
    const violation = monitor.observe([groupView('g102-0', 102, 3, serving(102, 7, 8))]);
    assert.equal(violation, {
      invariant: 'AtMostOneServer',
      detail: 'shard 7 is served by gid 101 (g101-0 at index 4) and gid 102 (g102-0 at index 3)',
    });
  });

test('StaleRejected: a group whose epoch for a shard goes down is caught', () => {
  const withEpoch = (epoch: number, phase: 'serving' | 'frozen') => {
    const state = emptyGroup(100, 10);
    const identity = { shard: 7, epoch, src: 101, dst: 100 };
    return withShard(state, 7, { ...state.shards[7]!, phase, identity });
  };
  const monitor = new SafetyMonitor();
  assert.is(monitor.observe([groupView('g100-0', 100, 5, withEpoch(5, 'serving'))]), null);
  assert.is(monitor.observe([groupView('g100-1', 100, 6, withEpoch(6, 'serving'))]), null);
  assert.equal(monitor.observe([groupView('g100-1', 100, 7, withEpoch(4, 'frozen'))]), {
    invariant: 'StaleRejected',
    detail: 'group 100 (g100-1 at index 7) went back for shard 7 from epoch 6 (101 -> 100), ' +
      'serving to epoch 4 (101 -> 100), frozen',
  });
});

test('ConfigsInOrder: a controller state whose intent skips a configuration is caught', () => {
  const base = initialControllerState(10);
  // Each state at its own applied index: one index, one state (ReplicaAgreement).
  const view = (current: number, num: number | null, appliedIndex: number): ServerView => ({
    kind: 'controller', name: 'ctl-0', raft: raft('leader', 1), appliedIndex,
    state: { ...base, current, next: num === null ? null : { num, moves: [] } },
  });
  const monitor = new SafetyMonitor();
  assert.is(monitor.observe([view(0, null, 5)]), null);
  assert.is(monitor.observe([view(0, 1, 6)]), null);
  assert.equal(monitor.observe([view(1, 3, 7)]), {
    invariant: 'ConfigsInOrder',
    detail: 'ctl-0 (at index 7) plans configuration 3 while configuration 1 is current',
  });
});

test('ReplicaAgreement: two controller replicas with different states at one index', () => {
  const base = initialControllerState(10);
  const view = (name: string, current: number): ServerView => ({
    kind: 'controller', name, raft: raft('follower', 1), appliedIndex: 4,
    state: { ...base, current },
  });
  const monitor = new SafetyMonitor();
  assert.is(monitor.observe([view('ctl-0', 0), view('ctl-1', 0)]), null);
  const found = monitor.observe([view('ctl-2', 1)]);
  assert.is(found?.invariant, 'ReplicaAgreement');
  assert.match(found!.detail, /^controller: ctl-2 holds state \w+ at applied index 4, ctl-0 held/);
});

test.run();
