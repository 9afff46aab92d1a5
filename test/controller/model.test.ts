// The `controller` model: exact state counts, the bug switch's counterexample, its replay.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { depthFirstSearch } from '../../checker/dfs.js';
import { resolveParams } from '../../checker/params.js';
import { parseTrace, replayTrace } from '../../checker/replay.js';
import { executePath } from '../../checker/trace.js';
import { WordReader, WordWriter } from '../../checker/words.js';
import { initialConfig, noControllerBugs } from '../../spec/controller/index.js';
import {
  controllerActions,
  controllerDefinition,
  createControllerModel,
  label,
  stepController,
  summarizeRebalance,
  type ControllerModelState,
} from '../../models/controller/index.js';
import { findModel } from '../../models/registry.js';

const model = (gids: number, shards: number, ops: number, moves: number) =>
  createControllerModel({ gids, shards, ops, moves });

test('registered as "controller" with its bounds and bug', () => {
  assert.is(findModel('controller'), controllerDefinition);
  assert.equal(resolveParams(controllerDefinition, undefined, {}), {
    gids: 4, shards: 10, ops: 6, moves: 1,
  });
  assert.equal(controllerDefinition.bugs.map((bug) => [bug.name, bug.breaks]), [
    ['non-minimal-rebalance', ['MinimalMoves']],
    ['non-minimal-by-gid-order', ['MinimalMoves']],
    ['query-answers-older', ['HistoryImmutable']],
  ]);
});

test('gids 2, shards 1, ops 2, moves 1: the 12 states counted by hand', () => {
  // Depth 0: configuration 0. Depth 1: Join(1), Join(2), Join(1,2). Depth 2: from {1}:
  // Join(2), Leave(1); from {2}: Join(1), Leave(2); from {1,2}: Leave(1), Leave(2),
  // Leave(1,2), Move(0,2). Leave(1) from {1}, Leave(2) from {2} and Leave(1,2) all reach no
  // groups with one shard moved of at least one, but each keeps its own previous
  // configuration (Query reads it): three states, so depth 2 holds 8. Queries add none.
  const result = breadthFirstSearch(model(2, 1, 2, 1));
  assert.is(result.result, 'ok');
  assert.is(result.distinctStates, 12);
  assert.is(result.depth, 2);
});

// From the code itself (no independent count), checked two ways: bfs and dfs agree.
for (const [gids, shards, ops, moves, distinct] of [
  [2, 3, 4, 4, 143],
  [3, 4, 4, 2, 2010],
  [4, 10, 3, 1, 3644],
] as const) {
  const bounds = `gids ${gids}, shards ${shards}, ops ${ops}, moves ${moves}`;
  test(`${bounds}: ${distinct} states (bfs = dfs)`, () => {
    const checked = model(gids, shards, ops, moves);
    const breadth = breadthFirstSearch(checked);
    assert.is(breadth.result, 'ok');
    assert.is(breadth.distinctStates, distinct);
    assert.is(depthFirstSearch(checked).distinctStates, distinct);
  });
}

test('actions: every Join and Leave of a non-empty gid set, every Move, every Query', () => {
  const actions = controllerActions({ gids: 4, shards: 10, ops: 6, moves: 1 });
  assert.is(actions.length, 15 + 15 + 40 + 8);
  assert.equal([0, 14, 15, 29, 30, 69, 70, 77].map((index) => label(actions[index]!)), [
    'Join(gid 1)', 'Join(gid 1, gid 2, gid 3, gid 4)', 'Leave(gid 1)',
    'Leave(gid 1, gid 2, gid 3, gid 4)', 'Move(shard 0, gid 1)', 'Move(shard 9, gid 4)',
    'Query(-1)', 'Query(6)',
  ]);
  assert.equal(actions[2], { type: 'join', groups: { 1: ['g1-0'], 2: ['g2-0'] } });
});

test('non-minimal-rebalance: BFS finds MinimalMoves broken after 2 steps', () => {
  const params = resolveParams(controllerDefinition, 'non-minimal-rebalance', {});
  const buggy = controllerDefinition.create(params, 'non-minimal-rebalance');
  const result = breadthFirstSearch(buggy);
  assert.is(result.result, 'violation');
  assert.is(result.invariant, 'MinimalMoves');
  const { actions } = executePath(buggy, result.path!);
  assert.equal(actions.map((action) => buggy.label(action)), ['Join(gid 2)', 'Join(gid 1, gid 3)']);
});

test('the kept counterexample of non-minimal-rebalance replays to MinimalMoves', () => {
  const text = readFileSync('traces/controller/non-minimal-rebalance.trace.json', 'utf8');
  const trace = parseTrace(text);
  assert.is(trace.bug, 'non-minimal-rebalance');
  const outcome = replayTrace(controllerDefinition, trace);
  assert.equal(outcome, { result: 'violation', steps: 2, invariant: 'MinimalMoves', step: 2 });
  // Without the bug the same steps are a correct behaviour.
  assert.equal(replayTrace(controllerDefinition, { ...trace, bug: null, states: [] }), {
    result: 'ok',
    steps: 2,
  });
});

// Join(2) gives g2 all ten shards; Join(1,3) must give 4 to the group holding the most (g2,
// keeping 4 of its 10) and 3 to g1 and g3: 6 moves. Giving the 4 to g1, the lowest gid,
// moves 7 (the bound is the catalog's MinimalMoves, computed independently).
test('non-minimal-by-gid-order: MinimalMoves broken after 2 steps; the trace replays', () => {
  const bug = 'non-minimal-by-gid-order';
  const buggy = controllerDefinition.create(resolveParams(controllerDefinition, bug, {}), bug);
  const result = breadthFirstSearch(buggy);
  assert.is(result.invariant, 'MinimalMoves');
  const { actions } = executePath(buggy, result.path!);
  assert.equal(actions.map((action) => buggy.label(action)), ['Join(gid 2)', 'Join(gid 1, gid 3)']);
  const text = readFileSync(`traces/controller/${bug}.trace.json`, 'utf8');
  const outcome = replayTrace(controllerDefinition, parseTrace(text));
  assert.equal(outcome, { result: 'violation', steps: 2, invariant: 'MinimalMoves', step: 2 });
});

// Join(1) makes configuration 1; Query(1) answers configuration 0 (the bug), not the one
// held at 1: HistoryImmutable, checked on the answer.
test('query-answers-older: HistoryImmutable broken by Query(1) after 2 steps; the trace replays',
  () => {
    const bug = 'query-answers-older';
    const buggy = controllerDefinition.create(resolveParams(controllerDefinition, bug, {}), bug);
    const result = breadthFirstSearch(buggy);
    assert.is(result.invariant, 'HistoryImmutable');
    const { actions } = executePath(buggy, result.path!);
    assert.equal(actions.map((action) => buggy.label(action)), ['Join(gid 1)', 'Query(1)']);
    const text = readFileSync(`traces/controller/${bug}.trace.json`, 'utf8');
    const outcome = replayTrace(controllerDefinition, parseTrace(text));
    assert.equal(outcome, { result: 'violation', steps: 2, invariant: 'HistoryImmutable', step: 2 });
  });

test('MoveToOwnerNoOp: a Move to the owner that made a configuration is caught', () => {
  const checked = model(2, 2, 3, 1);
  const [initial] = checked.initialStates();
  const joined = checked.next(initial!, { type: 'join', groups: { 1: ['g1-0'] } })!;
  // What a Move that ignored CONTRACT's no-op would leave: a new, equal configuration.
  const remade = { ...joined.latest, num: 2 };
  const bad = stepController(joined, { type: 'move', shard: 0, gid: 1 }, noControllerBugs);
  assert.is(bad, joined);
  const invariant = checked.invariants.find(({ name }) => name === 'MoveToOwnerNoOp')!;
  assert.ok(invariant.holds(joined));
  assert.not.ok(invariant.holds({ ...joined, latest: remade, noOpMovesKept: false }));
});

test('refused and no-op requests leave the state as it was; bounds are guards', () => {
  const checked = model(2, 4, 2, 0);
  const [initial] = checked.initialStates();
  const joined = checked.next(initial!, { type: 'join', groups: { 1: ['g1-0'] } })!;
  assert.equal(joined.latest.shards, [1, 1, 1, 1]);
  const rejoin = { type: 'join', groups: { 1: ['g1-0'] } } as const;
  assert.is(stepController(joined, rejoin, noControllerBugs), joined);
  assert.is(stepController(joined, { type: 'leave', gids: [2] }, noControllerBugs), joined);
  assert.is(stepController(joined, { type: 'move', shard: 0, gid: 1 }, noControllerBugs), joined);
  // A self-loop reaches nothing new: the model reports it as not enabled.
  assert.is(checked.next(joined, { type: 'join', groups: { 1: ['g1-0'] } }), null);
  // moves = 0: no Move is enabled, even one that would change the owner.
  const both = checked.next(joined, { type: 'join', groups: { 2: ['g2-0'] } })!;
  assert.is(checked.next(both, { type: 'move', shard: 0, gid: 2 }), null);
  // ops = 2 reached: nothing is enabled.
  assert.is(checked.next(both, { type: 'leave', gids: [1] }), null);
  assert.equal(both.lastRebalance, { moved: 2, minimum: 2, orderIndependent: true });
  const moved = stepController(both, { type: 'move', shard: 0, gid: 2 }, noControllerBugs);
  assert.equal(moved, {
    latest: { num: 3, shards: [2, 1, 2, 2], groups: both.latest.groups },
    previous: both.latest,
    lastRebalance: null,
    historyKept: true,
    noOpMovesKept: true,
    movesDone: 1,
  });
  // A Query changes nothing: it answers from the history the state keeps.
  assert.is(stepController(moved, { type: 'query', num: 1 }, noControllerBugs), moved);
  assert.is(stepController(moved, { type: 'query', num: -1 }, noControllerBugs), moved);
});

test('each invariant fails on a state that breaks it', () => {
  const checked = model(3, 4, 6, 6);
  const failing = (state: ControllerModelState) =>
    checked.invariants
      .filter((invariant) => !invariant.holds(state))
      .map((invariant) => invariant.name);
  const withShards = (state: ControllerModelState, shards: number[]) =>
    ({ ...state, latest: { ...state.latest, shards } });
  const groups = { 1: ['g1-0'], 2: ['g2-0'] };
  const good: ControllerModelState = {
    latest: { num: 2, shards: [1, 1, 2, 2], groups },
    previous: { num: 1, shards: [1, 1, 1, 1], groups: { 1: ['g1-0'] } },
    lastRebalance: { moved: 2, minimum: 2, orderIndependent: true },
    historyKept: true,
    noOpMovesKept: true,
    movesDone: 0,
  };
  assert.equal(failing(good), []);
  assert.equal(failing({ ...good, historyKept: false }), ['HistoryImmutable']);
  assert.equal(failing({ ...good, noOpMovesKept: false }), ['MoveToOwnerNoOp']);
  assert.equal(failing(withShards(good, [1, 2, 3, 2])), [
    'ValidConfig', 'Balanced',
  ]);
  assert.equal(failing(withShards(good, [1, 1, 1, 2])), ['Balanced']);
  const summary = { moved: 2, minimum: 2, orderIndependent: true };
  assert.equal(failing({ ...good, lastRebalance: { ...summary, moved: 3 } }), ['MinimalMoves']);
  const orderDependent = { ...summary, orderIndependent: false };
  assert.equal(failing({ ...good, lastRebalance: orderDependent }), ['Deterministic']);
  // After a Move only the structural properties apply: an unbalanced result is fine.
  const afterMove = { ...good, lastRebalance: null };
  assert.equal(failing(withShards(afterMove, [1, 1, 1, 2])), []);
  assert.equal(failing(withShards(afterMove, [1, 0, 1, 2])), ['Balanced']);
});

test('summarizeRebalance measures moves against the bound and the order of the gids', () => {
  const after = { num: 2, shards: [1, 1, 2, 2], groups: { 1: ['g1-0'], 2: ['g2-0'] } };
  assert.equal(summarizeRebalance([1, 1, 1, 1], after, noControllerBugs), {
    moved: 2, minimum: 2, orderIndependent: true,
  });
  // Minimal and balanced, but not what the documented tie-breaking rules produce.
  const other = { ...after, shards: [2, 1, 2, 1] };
  assert.equal(summarizeRebalance([1, 1, 1, 1], other, noControllerBugs), {
    moved: 2, minimum: 2, orderIndependent: false,
  });
  const threeMoved = { ...after, shards: [2, 2, 1, 2] };
  assert.equal(summarizeRebalance([1, 1, 1, 1], threeMoved, noControllerBugs), {
    moved: 3, minimum: 2, orderIndependent: false,
  });
});

test('the codec round-trips states with and without a rebalance summary', () => {
  const checked = model(4, 10, 6, 2);
  const states: ControllerModelState[] = [
    {
      latest: initialConfig(10), previous: null, lastRebalance: null, historyKept: true,
      noOpMovesKept: true, movesDone: 0,
    },
    {
      latest: {
        num: 2,
        shards: [4, 4, 4, 1, 1, 1, 3, 3, 2, 2],
        groups: { 1: ['g1-0'], 2: ['g2-0'], 3: ['g3-0'], 4: ['g4-0'] },
      },
      previous: { num: 1, shards: Array<number>(10).fill(2), groups: { 2: ['g2-0'] } },
      lastRebalance: { moved: 10, minimum: 9, orderIndependent: false },
      historyKept: false,
      noOpMovesKept: false,
      movesDone: 2,
    },
  ];
  for (const state of states) {
    const out = new WordWriter();
    checked.codec.encode(state, out);
    const decoded = checked.codec.decode(new WordReader(out.words.slice(0, out.length)));
    assert.equal(decoded, state);
  }
});

test.run();
