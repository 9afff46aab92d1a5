// The known bugs of DESIGN §3 for `raft`: BFS up to server renaming finds each at its
// documented bounds, with the expected invariant and shortest counterexample, and the kept
// trace replays. Of the full tier: the same searches without renaming and the safety of each
// bug's bounds without the bug (bug-bounds.test.ts), and the searches for commit-prev-term
// (Figure 8, minutes each: figure-8.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { checkLiveness } from '../../checker/liveness.js';
import type { AnyModel } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { parseTrace, replayTrace } from '../../checker/replay.js';
import { raftDefinition } from '../../models/raft/index.js';
import { alsoBroken, expected } from './bug-expectations.js';

const traces = join(import.meta.dirname, '..', '..', 'traces', 'raft');

/**
 * Liveness bugs (issue 26): the liveness pass of their preset finds a fair lasso, and the
 * kept trace replays to it. prevote-response-term: s1 times out, asks s2 and s3 for
 * pre-votes, both grant, the grants are not counted, and s1 asks again for ever.
 * leader-never-steps-down (two servers): s1 is elected, hears s2 answer its AppendEntries,
 * and is cut off; its election timeouts keep counting s2, so it leads for ever (the lasso
 * ends stuttering: loop = length).
 */
const lassos = [
  { bug: 'prevote-response-term', property: 'LeaderElected', length: 7, loop: 1 },
  { bug: 'leader-never-steps-down', property: 'LeaderStepsDown', length: 13, loop: 13 },
] as const;

for (const { bug, property, length, loop } of lassos) {
  test(`${bug}: the liveness pass finds a ${property} lasso; the kept trace replays`, () => {
    const params = resolveParams(raftDefinition, bug, {});
    const result = checkLiveness(raftDefinition.create(params, bug) as AnyModel);
    assert.is(result.result, 'violation');
    assert.is(result.property, property);
    const trace = parseTrace(readFileSync(join(traces, `${bug}.trace.json`), 'utf8'));
    assert.equal(replayTrace(raftDefinition, trace),
      { result: 'violation', steps: length, invariant: property, step: length, loop });
  });
}

for (const { bug, invariant, length, slow } of expected) {
  test(`${bug}: the kept trace replays and violates ${invariant}`, () => {
    const trace = parseTrace(readFileSync(join(traces, `${bug}.trace.json`), 'utf8'));
    assert.is(trace.bug, bug);
    assert.is(trace.steps.length, length);
    const outcome = replayTrace(raftDefinition, trace);
    assert.equal(outcome, { result: 'violation', steps: length, invariant, step: length });
  });

  if (slow) continue;
  // Renaming keeps the verdict and the length (the last test) and saves up to 6x the states.
  test(`${bug}: BFS up to renaming finds ${invariant} violated after ${length} steps`, () => {
    const params = resolveParams(raftDefinition, bug, {});
    const result = breadthFirstSearch(raftDefinition.create({ ...params, symmetry: true }, bug));
    assert.is(result.result, 'violation');
    assert.is(result.invariant, invariant);
    assert.is(result.path?.actionIndexes.length, length);
    const breaks = raftDefinition.bugs.find((candidate) => candidate.name === bug)?.breaks ?? [];
    assert.ok(breaks.includes(invariant), `${invariant} is listed in the catalog for ${bug}`);
  });
}

test('every invariant a catalog entry names is either found first or listed above', () => {
  for (const bug of raftDefinition.bugs) {
    const lasso = lassos.find((item) => item.bug === bug.name);
    if (lasso !== undefined) {
      assert.equal(bug.breaks, [lasso.property]);
      continue;
    }
    const first = expected.find((item) => item.bug === bug.name);
    assert.ok(first, `${bug.name} has a test`);
    for (const invariant of bug.breaks) {
      const found =
        first.invariant === invariant ||
        alsoBroken.some((item) => item.bug === bug.name && item.invariant === invariant);
      assert.ok(found, `${bug.name}: ${invariant} is checked`);
    }
  }
});

test('--symmetry keeps the verdict and the counterexample length, with fewer states', () => {
  const params = resolveParams(raftDefinition, 'vote-ignores-log', {});
  const plain = breadthFirstSearch(raftDefinition.create(params, 'vote-ignores-log'));
  const reduced = breadthFirstSearch(
    raftDefinition.create({ ...params, symmetry: true }, 'vote-ignores-log'),
  );
  assert.is(reduced.invariant, plain.invariant);
  assert.is(reduced.path?.actionIndexes.length, 12);
  assert.ok(reduced.distinctStates < plain.distinctStates);
});

test.run();
