// Coverage and `sometimes` properties (issue 22, point 5): per action, enabled, taken and new
// states; an action never enabled is flagged; a `sometimes` property no state satisfies
// fails an exhaustive check, on one worker and on two.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { formatCoverage } from '../../checker/coverage.js';
import { completeModel } from '../../checker/define-model.js';
import { depthFirstSearch } from '../../checker/dfs.js';
import { parallelBreadthFirstSearch } from '../../checker/parallel-bfs.js';
import { createDieHardModel } from '../../models/calibration/diehard.js';
import { registryModule } from '../../models/registry.js';

test('diehard --coverage: six actions, each enabled in all 16 states, 15 new states', () => {
  const result = breadthFirstSearch(createDieHardModel(), {
    coverage: true,
    continueAfterViolation: true,
  });
  const rows = result.coverage!;
  assert.equal(
    rows.map((row) => row.action),
    ['FillSmallJug', 'FillBigJug', 'EmptySmallJug', 'EmptyBigJug', 'SmallToBig', 'BigToSmall'],
  );
  for (const row of rows) assert.is(row.enabled, 16, row.action);
  // Every state but the initial one is first reached by exactly one action.
  assert.is(rows.reduce((sum, row) => sum + row.newStates, 0), result.distinctStates - 1);
  // Generated states count the initial state and every enabled step (TLC's count).
  assert.is(rows.reduce((sum, row) => sum + row.enabled, 0), result.statesGenerated - 1);
  // Taken leaves out the steps that change nothing (emptying an empty jug).
  assert.equal(rows.map((row) => row.taken), [10, 12, 10, 12, 7, 7]);
  assert.equal(result.sometimesUnreached, []);
});

/** A counter to 3 whose `Reset` needs a value it never has: never enabled, never reached. */
const counter = completeModel('counter', {
  initialStates: () => [0],
  actions: () => ['Increment', 'Reset'],
  next: (value: number, action: string) =>
    action === 'Increment' ? (value < 3 ? value + 1 : null) : value === 7 ? 0 : null,
  isTerminal: (value: number) => value === 3,
  invariants: { Small: (value: number) => value <= 3 },
  sometimes: { ReachesThree: (value: number) => value === 3, ReachesSeven: (v) => v === 7 },
});

test('a never-enabled action is flagged, an unreachable sometimes is reported', () => {
  for (const search of [breadthFirstSearch, depthFirstSearch]) {
    const result = search(counter, { coverage: true });
    assert.is(result.result, 'ok');
    assert.equal(result.sometimesUnreached, ['ReachesSeven']);
    const reset = result.coverage!.find((row) => row.action === 'Reset')!;
    assert.is(reset.enabled, 0);
    assert.ok(formatCoverage(result.coverage!).some((line) => /Reset.*NEVER ENABLED/.test(line)));
  }
});

test('a stopped search reports no sometimes property unreached (it proves nothing)', () => {
  const result = breadthFirstSearch(counter, { maxStates: 2 });
  assert.is(result.result, 'incomplete');
  assert.is(result.sometimesUnreached, undefined);
});

test('twophase rms=3: both outcomes reached on 1 and on 2 workers', async () => {
  const one = breadthFirstSearch(
    (await import('../../models/calibration/twophase.js')).createTwoPhaseModel(3),
  );
  const two = await parallelBreadthFirstSearch(
    { model: { module: registryModule, name: 'twophase' }, params: { rms: 3 }, bug: undefined,
      workers: 2 },
    {},
  );
  assert.equal(one.sometimesUnreached, []);
  assert.equal(two.sometimesUnreached, []);
  assert.is(two.distinctStates, one.distinctStates);
});

test.run();
