// Deadlock detection as TLC does it (issue 10, point 3): a reachable state with no successor
// at all, inside or outside the bounds, that the model does not declare terminal is reported
// as the violation "Deadlock" with a shortest trace. Small hand-made models, counted by hand.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { depthFirstSearch } from '../../checker/dfs.js';
import type { Model } from '../../checker/model.js';
import { plainCodec } from '../../checker/plain-codec.js';
import { simulate } from '../../checker/simulate.js';

/** A counter that climbs by 1 or by 2 up to `top`, where nothing is enabled any more. */
function climber(top: number, extra: Partial<Model<number, number>> = {}): Model<number, number> {
  return {
    name: 'climber',
    initialStates: () => [0],
    actions: () => [1, 2],
    next: (state, step) => (state + step <= top ? state + step : null),
    label: (step) => `Climb(${step})`,
    invariants: [],
    codec: plainCodec<number>(),
    ...extra,
  };
}

// The counts here are hand counts of the toy models: the climber's states are 0..5.
test('a state without successors is a Deadlock, with a shortest trace', () => {
  const result = breadthFirstSearch(climber(5));
  assert.is(result.result, 'violation');
  assert.is(result.invariant, 'Deadlock');
  // 5 is three steps away; of the three shortest paths, 1+2+2 has the least action indexes.
  assert.equal(result.path, { initialIndex: 0, actionIndexes: [0, 1, 1] });
  assert.is(result.distinctStates, 6);
});

test('a terminal state, or deadlock: false, is no violation', () => {
  const terminal = breadthFirstSearch(climber(5, { isTerminal: (state) => state === 5 }));
  assert.is(terminal.result, 'ok');
  assert.is(terminal.distinctStates, 6);
  assert.is(breadthFirstSearch(climber(5), { deadlock: false }).result, 'ok');
  const other = breadthFirstSearch(climber(5, { isTerminal: (state) => state === 4 }));
  assert.is(other.invariant, 'Deadlock');
});

test('successors outside the bounds are successors: no deadlock at the edge', () => {
  const bounded = climber(9, { withinBounds: (state) => state <= 5 });
  const result = breadthFirstSearch(bounded);
  assert.is(result.result, 'ok');
  assert.is(result.distinctStates, 6);
});

test('dfs finds the deadlock too', () => {
  const result = depthFirstSearch(climber(5));
  assert.is(result.invariant, 'Deadlock');
  assert.is(result.path?.actionIndexes.reduce((sum, index) => sum + index + 1, 0), 5);
});

test('a deadlock beats an invariant violation one step deeper found first in its level', () => {
  // From 0: Climb(1) leads to 1, Climb(2) to 10. 1 climbs to 2, which breaks Below2; 10 has
  // no successor. BFS expands 1 (rank 0) before 10, so it sees the violation first.
  const model: Model<number, number> = {
    ...climber(0),
    next: (state, step) =>
      state === 0 ? (step === 1 ? 1 : 10) : state === 1 && step === 1 ? 2 : null,
    invariants: [{ name: 'Below2', holds: (state) => state !== 2 }],
  };
  const result = breadthFirstSearch(model);
  assert.is(result.invariant, 'Deadlock');
  assert.equal(result.path, { initialIndex: 0, actionIndexes: [1] });
  assert.is(result.distinctStates, 4, 'the level of the violation is finished');
});

test('random simulation reports a deadlock it walks into', () => {
  const result = simulate(climber(5), { seed: 3 });
  assert.is(result.invariant, 'Deadlock');
  const sum = result.path!.actionIndexes.reduce((total, index) => total + index + 1, 0);
  assert.is(sum, 5);
  assert.is(simulate(climber(5), { seed: 3, deadlock: false }).result, 'ok');
});

test.run();
