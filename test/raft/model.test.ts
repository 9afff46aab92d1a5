// The `raft` model: symmetry, the codec, the persist discipline, the presets, and a behaviour
// within the default bounds that covers what they must include (issue 3). Its pinned state
// counts are in model-counts.test.ts, of the full tier.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import type { Model } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { WordReader, WordWriter } from '../../checker/words.js';
import { raftCodec, renameServers, writeRaftView } from '../../models/raft/codec.js';
import {
  deepRaftBounds, defaultRaftBounds, raftDefinition, staleRepliesRaftBounds,
} from '../../models/raft/index.js';
import type { RaftBounds, RaftModelState } from '../../models/raft/model-state.js';
import { small, twoTerms } from './small-bounds.js';
import type { RaftOptions } from '../../spec/raft/types.js';
import {
  createRaftModel,
  initialModelState,
  stepModel,
  withinRaftBounds,
  type RaftAction,
} from '../../models/raft/model.js';
import { logEntriesArray } from '../../spec/raft/log-entries.js';


test('a leader change after a commit needs two entries: the new leader appends its no-op', () => {
  // The first such state BFS reaches, as a violation of "no leader change after a commit".
  const bounds = { ...defaultRaftBounds, maxLog: 2 };
  const model = createRaftModel(bounds);
  const found = breadthFirstSearch({
    ...model,
    invariants: [{
      name: 'NoLeaderChangeAfterCommit',
      holds: (state: RaftModelState) => !(state.committed.length > 0 && state.elected.length > 2),
    }],
  } as never, { maxStates: 200000 });
  assert.is(found.result, 'violation');
});

test('the definition builds the same model twice (workers rebuild it from name and params)', () => {
  // Bounds of 11,173 states; the definition's `small` (116,017) is in model-counts.test.ts.
  const given = { 'max-term': '1', 'max-compactions': '0', 'max-reads': '0' };
  const params = resolveParams(raftDefinition, undefined, given);
  const first = breadthFirstSearch(raftDefinition.create(params, undefined));
  const second = breadthFirstSearch(raftDefinition.create(params, undefined));
  const direct = breadthFirstSearch(
    createRaftModel({ ...small, maxCompactions: 0, maxReads: 0 }) as never);
  assert.is(first.distinctStates, direct.distinctStates, 'the bounds the params name');
  assert.equal({ ...second, seconds: 0 }, { ...first, seconds: 0 });
});

/** Every state BFS reaches within `bounds`, collected through an always-true invariant. */
function reachable(
  bounds: RaftBounds,
  limit: number,
  options: RaftOptions = {},
): RaftModelState[] {
  const model = createRaftModel(bounds, options);
  const states: RaftModelState[] = [];
  const collecting: Model<RaftModelState, RaftAction> = {
    ...model,
    invariants: [
      { name: 'Collect', holds: (state) => (states.length < limit && states.push(state), true) },
    ],
  };
  breadthFirstSearch(collecting as never, { maxStates: limit });
  return states;
}

let smallStates: RaftModelState[] | undefined;
/**
 * The first 30,000 states of `small` (of 116,017), searched once for the two tests that read
 * them: every kind of state the codec test asks for is among the first 25,000.
 */
const firstOfSmall = () => (smallStates ??= reachable(small, 30000));

test('the codec round-trips and the symmetric view ignores server names', () => {
  const codec = raftCodec(small);
  const out = new WordWriter();
  const view = new WordWriter();
  const renamedView = new WordWriter();
  // Every other state of `small` (BFS order), and some with PreVote and CheckQuorum.
  const states = [
    ...firstOfSmall().filter((_, index) => index % 2 === 0),
    ...reachable(small, 10000, { preVote: true, checkQuorum: true }).filter(
      (_, index) => index % 2 === 0,
    ),
  ];
  const has = (found: (state: RaftModelState) => boolean) => states.some(found);
  const message = (type: string) => (state: RaftModelState) =>
    state.messages.some((item) => item.envelope.message.type === type);
  assert.ok(has((state) => state.servers.some((server) => server.snapshot !== null)));
  assert.ok(has((state) => state.servers.some((server) => server.pendingReads.length > 0)));
  assert.ok(has((state) => state.servers.some((server) => server.recentlyActive !== 0)));
  assert.ok(has((state) => state.servers.some((server) => server.role === 'precandidate')));
  assert.ok(has((state) => state.readsWaiting.length > 0));
  assert.ok(has((state) => state.readsIssued > 0 && state.readsWaiting.length === 0));
  for (const type of ['InstallSnapshotRequest', 'InstallSnapshotResponse', 'PreVoteResponse']) {
    assert.ok(has(message(type)), type);
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

test('without bugs, what a node saved is always what it holds (§5.1: save before send)', () => {
  for (const state of firstOfSmall()) {
    state.servers.forEach((server, id) => {
      const persisted = state.persisted[id]!;
      assert.equal(persisted.hardState, {
        currentTerm: server.currentTerm,
        votedFor: server.votedFor,
        commitIndex: server.commitIndex,
      });
      assert.equal(persisted.entries, logEntriesArray(server.log));
      assert.equal(persisted.snapshot, server.snapshot);
    });
  }
});

const saveOrder = ['saveSnapshot', 'saveEntries', 'saveHardState'];

test('every step saves each thing at most once, first, and only what changed (DESIGN §2)', () => {
  // Two terms and two entries: votes in a term the voter has, appends, truncations, commits.
  // Every third of the first 30,000 states (of 286,944).
  const model = createRaftModel(twoTerms);
  const states = reachable(twoTerms, 30000);
  let steps = 0;
  let saving = 0;
  let overwriting = 0;
  for (let at = 0; at < states.length; at += 3) {
    for (const action of model.actions(states[at]!)) {
      const step = stepModel(states[at]!, action, {}, twoTerms);
      if (step === null) continue;
      steps++;
      const types = step.effects.map((effect) => effect.type);
      const saves = types.filter((type) => saveOrder.includes(type));
      if (saves.length === 0) continue;
      saving++;
      assert.equal(types.slice(0, saves.length), saves, `saves first: ${types}`);
      const ranks = saves.map((type) => saveOrder.indexOf(type));
      assert.ok(ranks.every((rank, index) => index === 0 || rank > ranks[index - 1]!), `${types}`);
      for (const effect of step.effects) {
        if (effect.type !== 'saveEntries') continue;
        // Never the whole log again: from the first index that changed.
        const before = states[at]!.persisted[serverOf(action)]!.entries;
        const from = effect.fromIndex - 1;
        assert.ok(before.length <= from || before[from] !== effect.entries[0], 'changed');
        if (before.length > from) overwriting++;
      }
    }
  }
  assert.ok(steps > 10000 && saving > 1000, `${steps} steps, ${saving} saving`);
  assert.ok(overwriting > 0, 'a truncating append saves from the first entry it replaced');
});

const serverOf = (action: RaftAction) =>
  'envelope' in action ? action.envelope.to : action.server;

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
const heartbeat = (server: number, peer: number): RaftAction => ({
  type: 'Heartbeat',
  server,
  peer,
});

test('default bounds reach a commit, a served read, a compaction, a restart', () => {
  const state = drive([
    { type: 'Timeout', server: 0 },
    heartbeat(0, 1),
    deliver(0, 1),
    deliver(1, 0),
    { type: 'Sync', server: 0 },
    { type: 'ReadIndex', server: 0 },
    heartbeat(0, 1),
    deliver(0, 1),
    deliver(1, 0),
    { type: 'CompactLog', server: 0 },
    { type: 'Restart', server: 0 },
  ]);
  // The no-op of term 1 committed; the read confirmed by s2 is served at its index.
  assert.equal(state.committed, [{ index: 1, term: 1, command: null, inTerm: 1 }]);
  assert.equal([state.readsIssued, state.readsWaiting, state.staleRead], [1, [], false]);
  assert.equal(state.elected, [0, 0b001]);
  assert.is(state.restarts, 1);
  assert.is(state.compactions, 1);
  assert.is(state.servers[0]!.snapshot?.lastIncludedIndex, 1);
  assert.is(state.servers[0]!.role, 'follower');
  assert.is(state.servers[0]!.commitIndex, 1, 'the synced commit index survives the restart');
});

test('§10.2.1: the leader sends its no-op before it is durable, counts it only after Sync', () => {
  const elected = [{ type: 'Timeout', server: 0 }, heartbeat(0, 1), deliver(0, 1), deliver(1, 0)];
  const replicated = [heartbeat(0, 1), deliver(0, 1), deliver(1, 0)];
  const acknowledged = drive([...elected, ...replicated] as RaftAction[]);
  assert.is(acknowledged.servers[1]!.log.length, 1, 's2 holds the no-op');
  assert.is(acknowledged.servers[0]!.commitIndex, 0, "s2's copy alone is no quorum");
  assert.equal(acknowledged.durable[0]!.entries, [], "s1's no-op is written, not durable");
  const synced = stepModel(acknowledged, { type: 'Sync', server: 0 }, {}, defaultRaftBounds)!;
  assert.is(synced.state.servers[0]!.commitIndex, 1);
  // A crash before the Sync loses the no-op; s2 keeps its durable copy.
  const crashed = stepModel(acknowledged, { type: 'Restart', server: 0 }, {}, defaultRaftBounds)!;
  assert.equal(logEntriesArray(crashed.state.servers[0]!.log), []);
  assert.is(crashed.state.durable[1]!.entries.length, 1);
  assert.is(stepModel(crashed.state, { type: 'Sync', server: 0 }, {}, defaultRaftBounds), null);
});

test('a commitIndex-only hard state rides the next sync: a crash before it loses it', () => {
  const state = drive([
    { type: 'Timeout', server: 0 },
    heartbeat(0, 1),
    deliver(0, 1),
    deliver(1, 0),
    { type: 'Sync', server: 0 },
    heartbeat(0, 1),
    deliver(0, 1),
    deliver(1, 0),
    heartbeat(0, 1),
    deliver(0, 1),
  ]);
  assert.is(state.servers[1]!.commitIndex, 1, 's2 learned the commit from a heartbeat');
  assert.is(state.durable[1]!.hardState.commitIndex, 0, 'written, not synced');
  const restarted = stepModel(state, { type: 'Restart', server: 1 }, {}, defaultRaftBounds)!;
  assert.is(restarted.state.servers[1]!.commitIndex, 0);
  assert.not.ok(restarted.state.commitRolledBack, 'a restart may come back lower');
  // With the crash budget spent, the lag can no longer be loaded and is forgotten.
  assert.is(restarted.state.durable[0]!.hardState.commitIndex, 1);
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
    'max-reads': 1,
    'pre-vote': false,
    'check-quorum': false,
    'inflight-window': 0,
    symmetry: false,
    preset: 'none',
    refines: 'none',
  });
});


test('--preset deep: two copies in flight, two terms, two entries, up to renaming', () => {
  const params = resolveParams(raftDefinition, undefined, { preset: 'deep' });
  const model = raftDefinition.create(params, undefined) as Model<RaftModelState, RaftAction>;
  assert.is(model.writeView !== undefined, true, 'symmetry is on');
  assert.equal({ ...defaultRaftBounds, ...deepRaftBounds }, {
    servers: 3,
    values: 1,
    maxTerm: 2,
    maxLog: 2,
    maxMsgs: 2,
    maxRestarts: 0,
    maxCompactions: 0,
    maxReads: 0,
  });
  const given = resolveParams(raftDefinition, undefined, { preset: 'deep', 'max-msgs': '3' });
  assert.throws(() => raftDefinition.create(given, undefined), /--preset deep sets --max-msgs/);
});

test('--preset stale-replies: three terms, two entries, two copies; it finds count-stale-vote',
  () => {
    const params = resolveParams(raftDefinition, undefined, { preset: 'stale-replies' });
    const model = raftDefinition.create(params, undefined) as Model<RaftModelState, RaftAction>;
    assert.is(model.writeView !== undefined, true, 'symmetry is on');
    assert.equal(staleRepliesRaftBounds, {
      maxTerm: 3, maxLog: 2, maxMsgs: 2, maxRestarts: 0, maxCompactions: 0, maxReads: 0,
    });
    const bounds = { ...defaultRaftBounds, ...staleRepliesRaftBounds };
    const bugs = { 'count-stale-vote': true };
    const found = breadthFirstSearch(createRaftModel(bounds, { bugs }, true) as never);
    assert.is(found.result, 'violation');
    assert.is(found.invariant, 'ElectionSafety');
    assert.is(found.path?.actionIndexes.length, 9);
  });

test.run();
