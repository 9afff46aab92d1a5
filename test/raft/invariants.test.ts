// Each Raft invariant rejects a hand-made state that breaks it (so none holds vacuously), and
// accepts the initial state.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultRaftBounds } from '../../models/raft/index.js';
import { raftInvariants } from '../../models/raft/invariants.js';
import { commandAt, type ModelNode, type RaftModelState } from '../../models/raft/model-state.js';
import { initialModelState, recordHistory } from '../../models/raft/model.js';
import { logEntriesArray, logEntriesOf } from '../../spec/raft/log-entries.js';
import { initialProgress } from '../../spec/raft/progress.js';
import type { Entry } from '../../spec/raft/types.js';

const initial = initialModelState(defaultRaftBounds);

function violated(state: RaftModelState): string[] {
  return raftInvariants
    .filter((invariant) => !invariant.holds(state))
    .map((invariant) => invariant.name);
}

function withServers(changes: readonly Partial<ModelNode>[], extra: Partial<RaftModelState> = {}) {
  const servers = initial.servers.map((server, id) => ({ ...server, ...changes[id] }));
  const persisted = servers.map(({ currentTerm, votedFor, commitIndex, log, snapshot }) => ({
    hardState: { currentTerm, votedFor, commitIndex },
    snapshot,
    entries: logEntriesArray(log),
  }));
  // Each application applied what its node committed, as the model's does after every step.
  const applied = servers.map((server) =>
    Array.from({ length: server.commitIndex }, (_, at) => commandAt(server, at + 1) ?? null),
  );
  // Durable as written (what the model's disk holds once synced) unless `extra` says otherwise.
  return { ...initial, servers, persisted, durable: persisted, applied, ...extra };
}

const entry = (term: number, command: number | null = 0): Entry<number> => ({ term, command });
const probing = [0, 1, 2].map(() => initialProgress(0));

/** Why `name` fails in `state` (issue 11.7): its `explain` witness, in the labels' names. */
function witness(state: RaftModelState, name: string): string {
  return raftInvariants.find((invariant) => invariant.name === name)!.explain!(state);
}

test('the initial state satisfies every invariant', () => {
  assert.equal(violated(initial), []);
});

test('ElectionSafety: two leaders elected in one term (§5.2)', () => {
  assert.equal(violated({ ...initial, elected: [0, 0b011] }), ['ElectionSafety']);
  assert.is(witness({ ...initial, elected: [0, 0b011] }, 'ElectionSafety'),
    's1 and s2 both became leader in term 1');
});

test('LogMatching: same index and term, different earlier entries (§5.3)', () => {
  const state = withServers([{ log: logEntriesOf([entry(1, 0), entry(2)]) }, { log: logEntriesOf([entry(1, 1), entry(2)]) }]);
  assert.equal(violated(state), ['LogMatching']);
  assert.is(witness(state, 'LogMatching'), 's1 and s2 both hold term 2 at index 2 but differ ' +
    'at index 1: s1 has (term 1, v1), s2 has (term 1, v2)');
});

test('LeaderCompleteness: a later leader lacks a committed entry (§5.4)', () => {
  const committed = [{ index: 1, term: 1, command: 0, inTerm: 1 }];
  const state = withServers(
    [{ log: logEntriesOf([entry(1)]), commitIndex: 1 }, { log: logEntriesOf([entry(1)]) },
      { role: 'leader', currentTerm: 2, progress: probing }],
    { committed },
  );
  assert.equal(violated(state), ['LeaderCompleteness']);
  assert.is(witness(state, 'LeaderCompleteness'), 'leader s3 of term 2 holds nothing at ' +
    'index 1, where (term 1, v1) committed in term 1');
});

test('ProgressConsistent: a leader would send a follower entries past its own log', () => {
  const progress = [...probing];
  progress[1] = { ...progress[1]!, next: 3 };
  const state = withServers([{ role: 'leader', currentTerm: 1, log: logEntriesOf([entry(1)]), progress }]);
  assert.equal(violated(state), ['ProgressConsistent']);
  assert.match(witness(state, 'ProgressConsistent'), "s1's progress of s2 ");
  assert.equal(violated(withServers([{ progress: probing }])), ['ProgressConsistent'],
    'a follower keeps no progress');
});

test('StateMachineSafety: a server commits another entry at a committed index', () => {
  const committed = [{ index: 1, term: 1, command: 0, inTerm: 1 }];
  const state = withServers(
    [{ log: logEntriesOf([entry(1)]), commitIndex: 1 }, { log: logEntriesOf([entry(1)]) }, { log: logEntriesOf([entry(2)]), commitIndex: 1 }],
    { committed },
  );
  assert.equal(violated(state), ['StateMachineSafety']);
  assert.is(witness(state, 'StateMachineSafety'), 's3 has committed index 1 holding ' +
    '(term 2, v1), where (term 1, v1) committed in term 1');
});

test('StateMachineSafety counts snapshots: a compacted entry must be the committed one', () => {
  const committed = [{ index: 1, term: 1, command: 0, inTerm: 1 }];
  const snapshot = { lastIncludedIndex: 1, lastIncludedTerm: 1, data: [1] };
  const state = withServers(
    [{ log: logEntriesOf([entry(1)]), commitIndex: 1 }, { log: logEntriesOf([entry(1)]) }, { snapshot, commitIndex: 1 }],
    { committed },
  );
  // The snapshot's entry 1 has term 1 like the logs' but another value: logs disagree too,
  // and s3's application (restored from that snapshot) holds the other value.
  assert.equal(violated(state), ['LogMatching', 'StateMachineSafety', 'AppliedCommitted']);
});

test('LeaderAppendOnly: the history flag a rewritten leader log sets', () => {
  assert.equal(violated({ ...initial, leaderLogRewritten: true }), ['LeaderAppendOnly']);
});

test('LeaderAppendOnly: a leader step that changes or drops an entry sets the flag', () => {
  const before: ModelNode = {
    ...initial.servers[0]!,
    role: 'leader',
    currentTerm: 1,
    log: logEntriesOf([entry(1, 0), entry(1, 1)]),
    commitIndex: 1,
  };
  const flagged = (after: ModelNode) => recordHistory(initial, before, after).leaderLogRewritten;
  assert.is(flagged({ ...before, log: logEntriesOf([entry(1, 0), entry(1, 0)]) }), true, 'changed value');
  assert.is(flagged({ ...before, log: logEntriesOf([entry(1, 0)]) }), true, 'dropped entry');
  assert.is(flagged({ ...before, log: logEntriesOf([entry(1, 0), entry(1, 1), entry(1, 0)]) }), false);
  // Compaction moves entry 1 into the snapshot: its value stays, so the log is not rewritten.
  const snapshot = { lastIncludedIndex: 1, lastIncludedTerm: 1, data: [0] };
  assert.is(flagged({ ...before, snapshot, log: logEntriesOf([entry(1, 1)]) }), false, 'compaction');
  const otherValue = { ...snapshot, data: [1] };
  assert.is(flagged({ ...before, snapshot: otherValue, log: logEntriesOf([entry(1, 1)]) }), true, 'snapshot');
});

test('CommittedDurable: a committed entry persisted by fewer than a quorum', () => {
  const committed = [{ index: 1, term: 1, command: 0, inTerm: 1 }];
  const state = withServers([{ log: logEntriesOf([entry(1)]) }], { committed });
  assert.equal(violated(state), ['CommittedDurable']);
  assert.is(witness(state, 'CommittedDurable'), 'index 1 (term 1, v1) committed in term 1 is ' +
    'durable on 1 of 3 servers (s1), a quorum is 2');
});

test('CommittedDurable reads the durable disk: a written copy not synced does not count', () => {
  const committed = [{ index: 1, term: 1, command: 0, inTerm: 1 }];
  const state = withServers([{ log: logEntriesOf([entry(1)]) }, { log: logEntriesOf([entry(1)]) }], { committed });
  assert.equal(violated(state), []);
  // s1 (a leader that counted its own append early) wrote the entry but has not synced it.
  const durable = [initial.durable[0]!, ...state.persisted.slice(1)];
  assert.equal(violated({ ...state, durable }), ['CommittedDurable']);
  assert.is(witness({ ...state, durable }, 'CommittedDurable'), 'index 1 (term 1, v1) ' +
    'committed in term 1 is durable on 1 of 3 servers (s2), a quorum is 2');
});

test('AppliedCommitted: an application holds a value other than the committed one', () => {
  const committed = [{ index: 1, term: 1, command: 0, inTerm: 1 }];
  const servers = [{ log: logEntriesOf([entry(1)]), commitIndex: 1 }, { log: logEntriesOf([entry(1)]) }];
  const state = withServers(servers, { committed });
  assert.equal(violated(state), []);
  assert.equal(violated({ ...state, applied: [[1], [], []] }), ['AppliedCommitted']);
  assert.is(witness({ ...state, applied: [[1], [], []] }, 'AppliedCommitted'),
    's1 applied v2 at index 1, where (term 1, v1) committed in term 1');
});

test('AppliedCommitted: an application ahead of the committed log', () => {
  const state = withServers([{ log: logEntriesOf([entry(1)]), commitIndex: 0 }]);
  // Applied index 1 with commit index 0 breaks AppliedUpToCommit as well.
  assert.equal(violated({ ...state, applied: [[0], [], []] }), [
    'AppliedCommitted',
    'AppliedUpToCommit',
  ]);
});

test('AppliedUpToCommit: a node committed an entry its application never got', () => {
  const committed = [{ index: 1, term: 1, command: 0, inTerm: 1 }];
  const state = withServers([{ log: logEntriesOf([entry(1)]), commitIndex: 1 }, { log: logEntriesOf([entry(1)]) }], {
    committed,
  });
  assert.equal(violated({ ...state, applied: [[], [], []] }), ['AppliedUpToCommit']);
  assert.is(witness({ ...state, applied: [[], [], []] }, 'AppliedUpToCommit'),
    's1 applied 0 entries, its commitIndex is 1');
});

test('AppliedOnce and CommitMonotonic: the flags an apply out of order and a rollback set', () => {
  assert.equal(violated({ ...initial, applyOutOfOrder: true }), ['AppliedOnce']);
  assert.equal(violated({ ...initial, commitRolledBack: true }), ['CommitMonotonic']);
});

test('LinearizableReads: the flag a read served below its floor sets (§6.4)', () => {
  assert.equal(violated({ ...initial, staleRead: true }), ['LinearizableReads']);
});

test('NoTermRaisedAlone and LeaseRespected: the flags of §9.6', () => {
  assert.equal(violated({ ...initial, termRaisedAlone: true }), ['NoTermRaisedAlone']);
  assert.equal(violated({ ...initial, leaseBroken: true }), ['LeaseRespected']);
});

test.run();
