// @tier full: every migration bug's whole search at its catalog bounds.
// The `migration` model's known bugs (DESIGN §3's catalog, issue 10 item 4): BFS at each
// bug's bounds finds a violation of EVERY invariant its catalog entry names, the kept
// counterexample replays, and recovery-needs-source-after-delete, which breaks no invariant,
// is found by the liveness pass as a lasso. The step counts and state counts come from this
// code (no independent source); a BFS counterexample is a shortest one.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { checkLiveness } from '../../checker/liveness.js';
import type { AnyModel } from '../../checker/model.js';
import { resolveParams } from '../../checker/params.js';
import { parseTrace, replayTrace } from '../../checker/replay.js';
import { migrationBugNames, migrationBugs } from '../../spec/migration/bugs.js';
import { migrationDefinition } from '../../models/migration/model.js';

/**
 * Per bug, per invariant its entry names: the length of the shortest violation. They grew
 * when the model's driver became stepDriver (issue 20): a plan's moves start with the facts
 * queries (one step per group) the runtime's driver sends, and a crashed driver's too; a
 * few fell by one when the clients became spec/client's step (a lost reply's timeout asks
 * for the configuration in the same step) and frozen-source-serves-reads' ExactlyOnce rose
 * by one (a client learns a configuration only when its step asks). Since a get takes no
 * effect (issue 21's small results: it leaves no dedup record), frozen-source-serves-reads
 * no longer breaks ExactlyOnce (a Get answered twice is no write applied twice), and
 * one-seq-across-shards needs a client's two writes on two shards (bounds of two clients).
 */
const shortest: Record<string, Record<string, number>> = {
  'skip-freeze': { AtMostOneServer: 6, NoLostWrite: 9, ExactlyOnce: 9, ReadsCurrent: 11 },
  'unfreeze-on-recovery': {
    AtMostOneServer: 9, NoLostWrite: 12, ExactlyOnce: 12, ReadsCurrent: 14,
  },
  'reinstall-overwrites': { NoLostWrite: 10 },
  'delete-before-receipt': { NoLostWrite: 8, UnaffectedServed: 10 },
  'accept-stale-epoch': { GarbageBound: 15, UnaffectedServed: 17 },
  'skip-config': { GarbageBound: 6, UnaffectedServed: 6 },
  'dedup-not-migrated': { ExactlyOnce: 9 },
  'expiry-forgets-session': { ExactlyOnce: 3 },
  'frozen-source-serves-reads': { OnlyServerAnswers: 6, ReadsCurrent: 11 },
  'install-accepts-different-image': {
    OneImagePerIdentity: 13, NoLostWrite: 14, ExactlyOnce: 15, ReadsCurrent: 17,
  },
  'dedup-ignores-digest': { ExactlyOnce: 3 },
  'one-seq-across-shards': { ExactlyOnce: 7 },
  'migrate-returns-empty-after-gc': { OneImagePerIdentity: 13 },
};
const livenessBug = 'recovery-needs-source-after-delete';

function buggyModel(bug: string): AnyModel {
  return migrationDefinition.create(resolveParams(migrationDefinition, bug, {}), bug);
}

/** The model with only the named invariants checked. */
function checking(model: AnyModel, names: readonly string[]): AnyModel {
  const invariants = model.invariants.filter((invariant) => names.includes(invariant.name));
  assert.is(invariants.length, names.length, `unknown invariant among ${names.join(', ')}`);
  return { ...model, invariants };
}

test('every bug of the catalog is listed with exactly the invariants tested here', () => {
  assert.equal(migrationDefinition.bugs.map((bug) => bug.name), [...migrationBugNames]);
  for (const bug of migrationDefinition.bugs) {
    if (bug.name === livenessBug) {
      assert.equal(bug.breaks, ['RecordedConfigsPublished']);
      continue;
    }
    assert.equal(bug.breaks, Object.keys(shortest[bug.name]!), bug.name);
  }
});

for (const [bug, invariants] of Object.entries(shortest)) {
  test(`bug ${bug}: BFS finds a violation of each of ${Object.keys(invariants).join(', ')}`, () => {
    const model = buggyModel(bug);
    for (const [invariant, steps] of Object.entries(invariants)) {
      const result = breadthFirstSearch(checking(model, [invariant]), { deadlock: false });
      assert.is(result.result, 'violation', `${bug} ${invariant}`);
      assert.is(result.invariant, invariant);
      assert.is(result.path?.actionIndexes.length, steps, `${bug} ${invariant}`);
    }
  });
}

for (const bug of Object.keys(shortest)) {
  test(`bug ${bug}: the kept trace replays to the first violation BFS reports`, () => {
    const trace = parseTrace(readFileSync(`traces/migration/${bug}.trace.json`, 'utf8'));
    assert.is(trace.bug, bug);
    const steps = Math.min(...Object.values(shortest[bug]!));
    assert.is(trace.steps.length, steps);
    const outcome = replayTrace(migrationDefinition, trace);
    assert.equal(outcome, { result: 'violation', steps, invariant: trace.invariant, step: steps });
    assert.is(shortest[bug]![trace.invariant!], steps);
  });
}

// The chain of the seed article: each link's own switch is what breaks its invariants. The
// context of install-accepts-different-image (the entry migrate-returns-empty-after-gc)
// breaks OneImagePerIdentity but keeps NoLostWrite, ExactlyOnce and ReadsCurrent: its
// destination refuses the empty image.
test('install-accepts-different-image: its context alone breaks none of its invariants', () => {
  const entry = migrationBugs.find((bug) => bug.name === 'install-accepts-different-image');
  assert.equal(entry && 'context' in entry ? entry.context : [],
    ['recovery-needs-source-after-delete', 'migrate-returns-empty-after-gc']);
  const context = buggyModel('migrate-returns-empty-after-gc');
  const names = ['NoLostWrite', 'ExactlyOnce', 'ReadsCurrent'];
  const result = breadthFirstSearch(checking(context, names), { deadlock: false });
  assert.is(result.result, 'ok');
  assert.ok(result.distinctStates > 100000, `${result.distinctStates} states`);
});

// Liveness (issue 10 item 3): the driver that asks a deleted source wedges; no invariant
// fails (so OneImagePerIdentity holds in the context of migrate-returns-empty-after-gc), and
// the liveness pass finds a lasso: the last state stutters with configuration 2 unpublished
// (the recovered driver asks the source that deleted the shard to freeze it, forever).
test(`bug ${livenessBug}: safety holds, RecordedConfigsPublished fails by a lasso`, () => {
  const model = buggyModel(livenessBug);
  const safety = breadthFirstSearch(model);
  assert.is(safety.result, 'ok');
  // 417,345 before pre-copy, 389,417 before the parts were fetched from src, 315,065 before
  // the image parts.
  assert.is(safety.distinctStates, 421513);
  const liveness = checkLiveness(model);
  assert.is(liveness.result, 'violation');
  assert.is(liveness.property, 'RecordedConfigsPublished');
  assert.is(liveness.lasso?.actionIndexes.length, 10);
  assert.is(liveness.lasso?.loop, 10);
});

test(`bug ${livenessBug}: the kept lasso replays: the migration never finishes`, () => {
  const trace = parseTrace(readFileSync(`traces/migration/${livenessBug}.trace.json`, 'utf8'));
  assert.is(trace.bug, livenessBug);
  assert.is(trace.loop, 10);
  const outcome = replayTrace(migrationDefinition, trace);
  assert.equal(outcome, {
    result: 'violation', steps: 10, invariant: 'RecordedConfigsPublished', step: 10, loop: 10,
  });
});

test.run();
