// @tier full: minutes of searches (Figure 8 needs four elections at its bounds).
// commit-prev-term, Figure 8 of the Raft paper: BFS at its bounds finds LeaderCompleteness
// first, and each invariant it also breaks when checked alone (its kept trace replays in
// bugs.test.ts). The other bugs' searches without renaming, and their bounds' safety without
// the bug, are in bug-bounds.test.ts, another file so that the two run side by side.
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

test.run();
