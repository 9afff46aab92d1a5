// Each invariant of the raft.tla preset rejects a hand-made packed state that breaks it: the
// preset's 2,379,781 states all pass them, which alone would not show that any can fail.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTlaModel } from '../../models/raft/tla-preset.js';
import {
  appendEntry,
  commitIndexOffset,
  entryOf,
  leader,
  logOffset,
  roleOffset,
  stride,
  termOffset,
  type TlaState,
} from '../../models/raft/tla-state.js';

const model = createTlaModel({ servers: 3, values: 2, maxTerm: 2, maxLog: 2, maxMsgs: 1 });
const initial = model.initialStates()[0]!;
const width = stride(3);

/** The invariants the state breaks; the model's invariantsHold must agree. */
function violated(state: TlaState): string[] {
  const names = model.invariants.filter((invariant) => !invariant.holds(state)).map(
    ({ name }) => name,
  );
  assert.is(model.invariantsHold!(state), names.length === 0, 'invariantsHold agrees');
  return names;
}

/** A packed log of (term, value) entries. */
const log = (...entries: readonly (readonly [number, number])[]) =>
  entries.reduce((packed, [term, value]) => appendEntry(packed, entryOf(term, value)), 0);

type ServerFields = { term?: number; role?: number; log?: number; commitIndex?: number };

/** The initial state with some servers' words changed, and raft.tla's history as given. */
function withServers(changes: readonly ServerFields[], extra: Partial<TlaState> = {}): TlaState {
  const servers = initial.servers.slice();
  changes.forEach((change, server) => {
    const set = (offset: number, value: number | undefined) => {
      if (value !== undefined) servers[server * width + offset] = value;
    };
    set(termOffset, change.term);
    set(roleOffset, change.role);
    set(logOffset, change.log);
    set(commitIndexOffset, change.commitIndex);
  });
  return { ...initial, servers, ...extra };
}

/** An `elections` record: term, leader, the leader's log (votes and voterLog left empty). */
const election = (term: number, server: number, electedLog: number) =>
  Int32Array.of(term | (server << 5), electedLog, -1, -1, -1);

test('the initial state satisfies every invariant of the preset', () => {
  assert.equal(violated(initial), []);
  assert.equal(
    model.invariants.map(({ name }) => name),
    [
      'ElectionSafety',
      'LogMatching',
      'LeaderCompleteness',
      'StateMachineSafety',
      'LeaderAppendOnly',
    ],
  );
});

test('ElectionSafety: two elections of term 1 with different leaders', () => {
  const elections = [election(1, 0, 0), election(1, 1, 0)];
  assert.equal(violated(withServers([], { elections })), ['ElectionSafety']);
  const twoTerms = [election(1, 0, 0), election(2, 1, 0)];
  assert.equal(violated(withServers([], { elections: twoTerms })), []);
});

test('LogMatching: entry 2 of term 2 on both, entry 1 differs', () => {
  const state = withServers([{ log: log([1, 0], [2, 0]) }, { log: log([1, 1], [2, 0]) }]);
  assert.equal(violated(state), ['LogMatching']);
  // Same index and term means the same entry, value included (raft.tla compares SubSeq).
  assert.equal(violated(withServers([{ log: log([1, 0]) }, { log: log([1, 1]) }])), [
    'LogMatching',
  ]);
  assert.equal(violated(withServers([{ log: log([1, 0]) }, { log: log([2, 1]) }])), []);
});

test('LeaderCompleteness: a leader of term 2 lacks what a term-1 server committed', () => {
  const state = withServers([
    { term: 2, role: leader },
    { term: 1, log: log([1, 0]), commitIndex: 1 },
  ]);
  assert.equal(violated(state), ['LeaderCompleteness']);
});

test('StateMachineSafety: two servers committed different entries at index 1', () => {
  const state = withServers([
    { term: 2, log: log([1, 0]), commitIndex: 1 },
    { term: 2, log: log([2, 0]), commitIndex: 1 },
  ]);
  assert.equal(violated(state), ['StateMachineSafety']);
});

test('LeaderAppendOnly: a leader lost an entry it was elected with', () => {
  const elections = [election(1, 0, log([1, 0]))];
  const lost = withServers([{ term: 1, role: leader, log: 0 }], { elections });
  assert.equal(violated(lost), ['LeaderAppendOnly']);
  const grown = withServers([{ term: 1, role: leader, log: log([1, 0], [1, 1]) }], { elections });
  assert.equal(violated(grown), []);
});

test('the verdicts kept by content: the same fields under other elections are judged again', () => {
  const lostFields = [{ term: 1, role: leader, log: 0 }];
  const holding = withServers(lostFields, { elections: [election(1, 0, 0)] });
  assert.equal(violated(holding), []);
  // Equal server fields in new arrays (the cache's key) with an election the log lost.
  const lost = withServers(lostFields, { elections: [election(1, 0, log([1, 0]))] });
  assert.equal(violated(lost), ['LeaderAppendOnly']);
  // Back to the first elections' content, in a new array: judged anew, holds again.
  assert.equal(violated(withServers(lostFields, { elections: [election(1, 0, 0)] })), []);
  // The parent's verdict (model.next notes it) is the one a successor sharing its arrays gets.
  const [successor] = model.actions(lost).flatMap((action) => {
    const next = model.next(lost, action);
    return next !== null && next.servers === lost.servers ? [next] : [];
  });
  assert.ok(successor !== undefined, 'a step that leaves the servers as they are');
  assert.equal(violated(successor!), ['LeaderAppendOnly']);
});

test.run();
