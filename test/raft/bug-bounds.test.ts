// @tier full: every bug's bounds searched without renaming, with the bug and without it.
// At the documented bounds of every raft bug but commit-prev-term (figure-8.test.ts): plain
// BFS finds the bug's invariant after the same number of steps as the quick tier's search up
// to renaming (bugs.test.ts), and without the bug the same bounds are safe.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { resolveParams } from '../../checker/params.js';
import { raftDefinition } from '../../models/raft/index.js';
import { expected } from './bug-expectations.js';

for (const { bug, invariant, length } of expected.filter((item) => !item.slow)) {
  const params = resolveParams(raftDefinition, bug, {});
  // A bug whose bounds rename servers already has its documented search in bugs.test.ts.
  if (params['symmetry'] === true) continue;
  test(`${bug}: BFS without renaming finds ${invariant} violated after ${length} steps`, () => {
    const result = breadthFirstSearch(raftDefinition.create(params, bug));
    assert.is(result.result, 'violation');
    assert.is(result.invariant, invariant);
    assert.is(result.path?.actionIndexes.length, length);
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
