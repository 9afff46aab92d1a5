// Issue 23 items 1-2: the correct runtime follows the model's schedules, compared with the
// spec and checked after every step, at CI budgets of a few thousand model steps (walks), and
// along the shortest paths to the first states of a BFS.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { paths, run, target, walks } from './helpers.js';

const budgets: readonly {
  readonly model: string;
  readonly bounds: Readonly<Record<string, string>>;
  readonly walks: number;
  readonly depth: number;
  readonly minimum: number;
}[] = [
  { model: 'raft', bounds: {}, walks: 100, depth: 30, minimum: 2_500 },
  { model: 'raft', bounds: { 'max-log': '2', values: '2', 'max-reads': '2' }, walks: 30,
    depth: 60, minimum: 1_500 },
  { model: 'migration', bounds: {}, walks: 60, depth: 30, minimum: 1_500 },
  // Each Join / Leave / Move commits through the controller group: walks are as long as --ops.
  { model: 'controller', bounds: {}, walks: 60, depth: 6, minimum: 300 },
];

for (const budget of budgets) {
  const bounds = JSON.stringify(budget.bounds);
  test(`${budget.model} ${bounds}: ${budget.walks} walks run clean`, async () => {
    const on = target(budget.model, budget.bounds);
    const outcome = await run(on, walks(on, { walks: budget.walks, depth: budget.depth, seed: 1 }));
    assert.is(outcome.result, 'clean',
      outcome.result === 'diverged' ? outcome.reason : undefined);
    assert.is(outcome.schedules, budget.walks);
    assert.ok(outcome.steps >= budget.minimum, `${outcome.steps} steps`);
  });
}

for (const model of ['raft', 'migration', 'controller']) {
  test(`${model}: the shortest paths to the first 150 BFS states run clean`, async () => {
    const on = target(model);
    const outcome = await run(on, paths(on, 150));
    assert.is(outcome.result, 'clean',
      outcome.result === 'diverged' ? outcome.reason : undefined);
    assert.is(outcome.schedules, 150);
  });
}

test.run();
