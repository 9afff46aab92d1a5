// The `raft` model: pinned state counts, symmetry, the codec, the persist discipline, and a
// behaviour within the default bounds that covers what they must include (issue 3).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import type { Model } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { WordReader, WordWriter } from '../../checker/words.js';
import { raftCodec, renameServers, writeRaftView } from '../../spec/raft/codec.js';
import { defaultRaftBounds, raftDefinition } from '../../spec/raft/index.js';
import type { RaftBounds, RaftModelState } from '../../spec/raft/model-state.js';
import {
  createRaftModel,
  initialModelState,
  stepModel,
  withinRaftBounds,
  type RaftAction,
} from '../../spec/raft/model.js';

const small: RaftBounds = {
  servers: 3,
  values: 1,
  maxTerm: 1,
  maxLog: 1,
  maxMsgs: 1,
  maxRestarts: 1,
  maxCompactions: 1,
};
const twoTerms: RaftBounds = { ...small, maxTerm: 2, maxRestarts: 0, maxCompactions: 0 };

for (const [name, bounds, distinct, symmetric] of [
  ['one term, a restart, a compaction', small, 15298, 2561],
  ['two terms', twoTerms, 39282, 6557],
] as const) {
  test(`${name}: ${distinct} distinct states, ${symmetric} up to server renaming, all ok`, () => {
    const plain = breadthFirstSearch(createRaftModel(bounds) as never);
    const reduced = breadthFirstSearch(createRaftModel(bounds, {}, true) as never);
    assert.is(plain.result, 'ok');
    assert.is(reduced.result, 'ok');
    assert.is(plain.distinctStates, distinct);
    assert.is(reduced.distinctStates, symmetric);
    assert.is(reduced.depth, plain.depth);
  });
}

test('the definition builds the same model twice (workers rebuild it from name and params)', () => {
  const params = resolveParams(raftDefinition, undefined, { 'max-term': '1' });
  const first = breadthFirstSearch(raftDefinition.create(params, undefined));
  const second = breadthFirstSearch(raftDefinition.create(params, undefined));
  assert.is(first.distinctStates, 15298);
  assert.equal({ ...second, seconds: 0 }, { ...first, seconds: 0 });
});

/** Every state BFS reaches within `bounds`, collected through an always-true invariant. */
function reachable(bounds: RaftBounds, limit: number): RaftModelState[] {
  const model = createRaftModel(bounds);
  const states: RaftModelState[] = [];
  const collecting: Model<RaftModelState, RaftAction> = {
    ...model,
    invariants: [
      { name: 'Collect', holds: (state) => (states.length < limit && states.push(state), true) },
    ],
  };
  breadthFirstSearch(collecting as never);
  return states;
}

test('the codec round-trips and the symmetric view ignores server names', () => {
  const codec = raftCodec(small);
  const out = new WordWriter();
  const view = new WordWriter();
  const renamedView = new WordWriter();
  // All of them: the first few thousand (BFS order) hold no snapshot and no InstallSnapshot.
  const states = reachable(small, 20000);
  const has = (found: (state: RaftModelState) => boolean) => states.some(found);
  assert.ok(has((state) => state.servers.some((server) => server.snapshot.values.length > 0)));
  for (const type of ['InstallSnapshotRequest', 'InstallSnapshotResponse']) {
    assert.ok(has((state) => state.messages.some((item) => item.envelope.message.type === type)));
  }
  for (const state of states) {
    out.reset();
    codec.encode(state, out);
    const decoded = codec.decode(new WordReader(out.words, 0, out.length));
    assert.equal(decoded, state);
    view.reset();
    renamedView.reset();
    writeRaftView(state, view, small);
    writeRaftView(renameServers(state, [2, 0, 1]), renamedView, small);
    assert.equal(
      Array.from(renamedView.words.subarray(0, renamedView.length)),
      Array.from(view.words.subarray(0, view.length)),
    );
  }
});

test('without bugs, what a server persisted is always its hard state', () => {
  for (const state of reachable(small, 20000)) {
    state.servers.forEach((server, id) => {
      const persisted = state.persisted[id]!;
      assert.is(persisted.currentTerm, server.currentTerm);
      assert.is(persisted.votedFor, server.votedFor);
      assert.equal(persisted.log, server.log);
      assert.equal(persisted.snapshot, server.snapshot);
    });
  }
});

test('every step persists at most once, and before any send or apply (DESIGN §2)', () => {
  // Two terms: a vote in a term the voter already has, which no term bump's persist covers.
  const model = createRaftModel(twoTerms);
  const states = reachable(twoTerms, 50000);
  let steps = 0;
  let persisting = 0;
  for (let at = 0; at < states.length; at += 8) {
    for (const action of model.actions(states[at]!)) {
      const step = stepModel(states[at]!, action, {}, twoTerms);
      if (step === null) continue;
      steps++;
      const types = step.effects.map((effect) => effect.type);
      const persists = types.filter((type) => type === 'persist').length;
      assert.ok(persists <= 1, `one persist: ${types}`);
      if (persists === 0) continue;
      persisting++;
      const firstOutput = types.findIndex((type) => type === 'send' || type === 'apply');
      assert.ok(firstOutput < 0 || types.indexOf('persist') < firstOutput, `order: ${types}`);
    }
  }
  assert.ok(steps > 10000 && persisting > 1000, `${steps} steps, ${persisting} persisting`);
});

/** Drives the default model by hand: each step must be enabled and stay within the bounds. */
function drive(steps: readonly RaftAction[]): RaftModelState {
  let state = initialModelState(defaultRaftBounds);
  for (const action of steps) {
    const resolved =
      'envelope' in action
        ? {
            ...action,
            envelope: state.messages.find(
              (item) =>
                item.envelope.from === action.envelope.from &&
                item.envelope.to === action.envelope.to,
            )!.envelope,
          }
        : action;
    const step = stepModel(state, resolved, {}, defaultRaftBounds);
    assert.ok(step, `${action.type} is enabled`);
    state = step.state;
    assert.ok(
      withinRaftBounds(state, defaultRaftBounds),
      `${action.type} stays within the default bounds`,
    );
  }
  return state;
}

const deliver = (from: number, to: number): RaftAction => ({
  type: 'Deliver',
  envelope: { from, to, message: { type: 'RequestVoteResponse', term: 0, voteGranted: false } },
});

test('default bounds reach a compaction, a restart, a leader change after a commit', () => {
  const state = drive([
    { type: 'Timeout', server: 0 },
    { type: 'RequestVote', server: 0, peer: 1 },
    deliver(0, 1),
    deliver(1, 0),
    { type: 'ClientRequest', server: 0, value: 0 },
    { type: 'AppendEntries', server: 0, peer: 1 },
    deliver(0, 1),
    deliver(1, 0),
    { type: 'CompactLog', server: 0 },
    { type: 'Restart', server: 0 },
    { type: 'Timeout', server: 1 },
    { type: 'RequestVote', server: 1, peer: 2 },
    deliver(1, 2),
    deliver(2, 1),
  ]);
  assert.equal(state.committed, [{ index: 1, term: 1, value: 0, inTerm: 1 }]);
  assert.equal(state.elected, [0, 0b001, 0b010]);
  assert.is(state.restarts, 1);
  assert.is(state.compactions, 1);
  assert.is(state.servers[0]!.snapshot.lastIncludedIndex, 1);
  assert.is(state.servers[1]!.role, 'leader');
});

test('the default bounds are the documented ones', () => {
  const params = resolveParams(raftDefinition, undefined, {});
  assert.equal(params, {
    servers: 3,
    values: 1,
    'max-term': 2,
    'max-log': 1,
    'max-msgs': 1,
    'max-restarts': 1,
    'max-compactions': 1,
    symmetry: false,
    preset: 'none',
  });
});

test.run();
