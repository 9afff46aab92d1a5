// @tier full: minutes of searches (Figure 8 needs four elections at its bounds).
// The raft catalog's long searches: BFS at commit-prev-term's bounds finds LeaderCompleteness
// first, and each invariant it also breaks when checked alone (its kept trace replays in
// bugs.test.ts); and every other bug's bounds are safe without the bug.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { resolveParams } from '../../checker/params.js';
import { raftDefinition } from '../../models/raft/index.js';
import { alsoBroken, expected } from './bug-expectations.js';

const searches = [
  ...expected.filter((item) => item.slow).map((item) => ({ ...item, alone: false })),
  ...alsoBroken.map((item) => ({ ...item, alone: true })),
];

for (const { bug, invariant, length, alone } of searches) {
  test(`${bug}: BFS${alone ? ` checking ${invariant} alone` : ''} finds it after ${length} steps`, () => {
    const params = resolveParams(raftDefinition, bug, {});
    const model = raftDefinition.create(params, bug);
    const checked = alone
      ? { ...model, invariants: model.invariants.filter((i) => i.name === invariant) }
      : model;
    const result = breadthFirstSearch(checked);
    assert.is(result.result, 'violation');
    assert.is(result.invariant, invariant);
    assert.is(result.path?.actionIndexes.length, length);
    const breaks = raftDefinition.bugs.find((candidate) => candidate.name === bug)?.breaks ?? [];
    assert.ok(breaks.includes(invariant), `${invariant} is listed in the catalog for ${bug}`);
  });
}

test('without the bug, the bounds of every bug but commit-prev-term are safe', () => {
  for (const { bug } of expected.filter((item) => !item.slow)) {
    const params = resolveParams(raftDefinition, bug, {});
    const result = breadthFirstSearch(raftDefinition.create(params, undefined));
    assert.is(result.result, 'ok', bug);
  }
});

test.run();
