// The known bugs of DESIGN §3 for `raft`: BFS finds each at its documented bounds, with the
// expected invariant and shortest counterexample, and the kept trace replays.
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

const traces = join(import.meta.dirname, '..', '..', 'traces', 'raft');

// Lengths pinned from the checker's own shortest counterexamples (BFS), read step by step.
// A counterexample in which a leader commits is one step longer than before the disk followed
// spec/raft's sync duties: the leader's Sync, after which it counts its own copy.
const expected = [
  // Figure 8 of the Raft paper with no-op entries: four elections, 29 steps (up to renaming).
  { bug: 'commit-prev-term', invariant: 'LeaderCompleteness', length: 29, slow: true },
  // §5.4.1: an empty log wins a vote after the no-op of term 1 was committed.
  { bug: 'vote-ignores-log', invariant: 'LeaderCompleteness', length: 12, slow: false },
  // A restarted server votes a second time in term 1: two leaders.
  { bug: 'forget-vote-on-restart', invariant: 'ElectionSafety', length: 9, slow: false },
  // §6.4: s1, deposed by s2 (whose no-op committed index 2), serves a read at index 1.
  { bug: 'read-without-quorum', invariant: 'LinearizableReads', length: 19, slow: false },
  // §9.6: the pre-candidate's first election timeout already raises its term.
  { bug: 'prevote-raises-term', invariant: 'NoTermRaisedAlone', length: 1, slow: false },
  // §9.6: leader s1 heeds s2's vote request of term 2 while it leads term 1.
  { bug: 'vote-during-lease', invariant: 'LeaseRespected', length: 7, slow: false },
  // §5.3: a duplicate of s1's first AppendEntries reaches s2 after the value was committed
  // on s1 and s2 alone, and cuts it from s2's log: one copy left of a committed entry.
  { bug: 'truncate-on-every-append', invariant: 'CommittedDurable', length: 14, slow: false },
  // §7: s3 committed index 2, then a snapshot at 1 sent before (reordered) takes it back.
  { bug: 'snapshot-rollback', invariant: 'CommitMonotonic', length: 20, slow: false },
  // s2 learns that the no-op of term 1 committed and never applies it.
  { bug: 'follower-skips-apply', invariant: 'AppliedUpToCommit', length: 10, slow: false },
  // §5.1: s2's vote of term 1 for s1 reaches s1 as a candidate of term 2, while s3 votes
  // for s2 in term 2: s1 and s2 both lead term 2.
  { bug: 'count-stale-vote', invariant: 'ElectionSafety', length: 9, slow: false },
] as const;

/**
 * Liveness bugs (issue 26): the liveness pass of their preset finds a fair lasso, and the
 * kept trace replays to it. prevote-response-term: s1 times out, asks s2 and s3 for
 * pre-votes, both grant, the grants are not counted, and s1 asks again for ever.
 */
const lassos = [
  { bug: 'prevote-response-term', property: 'LeaderElected', length: 7, loop: 1 },
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

/**
 * The catalog's other invariants, each found alone by BFS at the bug's bounds (the search
 * above stops at the first one). Lengths pinned from the checker's own counterexamples.
 */
const alsoBroken = [
  // Figure 8 again, one election later: a follower commits the value the new leader erased.
  { bug: 'commit-prev-term', invariant: 'StateMachineSafety', length: 34 },
] as const;

for (const { bug, invariant, length, slow } of expected) {
  test(`${bug}: the kept trace replays and violates ${invariant}`, () => {
    const trace = parseTrace(readFileSync(join(traces, `${bug}.trace.json`), 'utf8'));
    assert.is(trace.bug, bug);
    assert.is(trace.steps.length, length);
    const outcome = replayTrace(raftDefinition, trace);
    assert.equal(outcome, { result: 'violation', steps: length, invariant, step: length });
  });

  const title = `${bug}: BFS finds ${invariant} violated after ${length} steps`;
  test(`${title}${slow ? ' (slow)' : ''}`, () => {
    const params = resolveParams(raftDefinition, bug, {});
    const result = breadthFirstSearch(raftDefinition.create(params, bug));
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

for (const { bug, invariant, length } of alsoBroken) {
  test(`${bug}: BFS checking ${invariant} alone finds it after ${length} steps (slow)`, () => {
    const params = resolveParams(raftDefinition, bug, {});
    const model = raftDefinition.create(params, bug);
    const only = { ...model, invariants: model.invariants.filter((i) => i.name === invariant) };
    const result = breadthFirstSearch(only);
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
