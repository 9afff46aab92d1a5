// Issue 14 item 4: a checker counterexample replayed in the real node code reproduces its
// invariant violation with the bug switched on, and the same schedule runs clean on the
// correct code. The expected invariant and step come from the kept trace (written by the
// checker, an independent source), never from the runtime replay itself.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keptTrace, replayKept } from './helpers.js';
import { resolveParams } from '../../checker/params.js';
import { findModel } from '../../models/registry.js';
import { createAdapter, runtimeModels } from '../../verify/replay/runtime-replay.js';

import { reproduced } from './reproduced.js';

for (const [model, bug] of reproduced) {
  test(`${bug}: the trace's violation reproduces in the runtime at the trace's last step`,
    async () => {
      const trace = keptTrace(model, bug);
      const outcome = await replayKept(model, bug, false);
      assert.is(outcome.result, 'reproduced', JSON.stringify(outcome));
      if (outcome.result !== 'reproduced') return;
      assert.is(outcome.invariant, trace.invariant);
      // A shortest counterexample violates its invariant first in its last state.
      assert.is(outcome.step, trace.steps.length);
      assert.is(outcome.steps.length, trace.steps.length);
      assert.ok(outcome.steps.every((step) => step.agrees), 'every step agrees');
    });
}

/**
 * The same schedules on the correct code (four need their bug to enable a later action),
 * and snapshot-rollback's, whose violation the shell stops with an assertion (divergence
 * test), with compaction and InstallSnapshot on the way.
 */
const needsBug = ['delete-before-receipt', 'install-accepts-different-image',
  'migrate-returns-empty-after-gc', 'query-answers-older'];
const clean = [
  ...reproduced.filter(([, bug]) => !needsBug.includes(bug)),
  ['raft', 'snapshot-rollback'] as const,
];

for (const [model, bug] of clean) {
  test(`${bug}: the same schedule runs clean on the correct code`, async () => {
    const trace = keptTrace(model, bug);
    const outcome = await replayKept(model, bug, true);
    assert.is(outcome.result, 'clean', JSON.stringify(outcome));
    assert.is(outcome.steps.length, trace.steps.length);
    assert.ok(outcome.steps.every((step) => step.agrees), 'every step agrees');
  });
}

test('vote-ignores-log without the bug: the refused vote replaces the granted one', async () => {
  const outcome = await replayKept('raft', 'vote-ignores-log', true);
  const last = outcome.steps.at(-1)!;
  assert.match(last.note ?? '', /the correct code takes .*"voteGranted":false/);
});

test('accept-stale-epoch: the publish and the next plan commit at the trace\'s steps',
  async () => {
    // The driver proposes the publish once the last move is done and the next plan once the
    // publish applies; each waits in the controller group's log for the trace's step. Once
    // the plan applies the driver asks for facts: the trace's next steps are its queries.
    const trace = keptTrace('migration', 'accept-stale-epoch');
    const outcome = await replayKept('migration', 'accept-stale-epoch', false);
    const publish = trace.steps.find((step) =>
      (step.action as { type: string }).type === 'Publish')!.step;
    const typeAt = (step: number) => (trace.steps[step - 1]!.action as { type: string }).type;
    assert.equal([publish + 1, publish + 2, publish + 3].map(typeAt),
      ['PlanNext', 'Query', 'Query']);
    for (const step of [publish, publish + 1]) {
      assert.is(outcome.steps[step - 1]!.agrees, true);
      assert.is(outcome.steps[step - 1]!.note, undefined, 'no retry timer needed');
    }
    assert.ok(outcome.steps.slice(publish + 1, publish + 3).every((step) => step.agrees));
  });

test('every invariant of the models the runtime is driven along is evaluated on it', () => {
  for (const name of runtimeModels) {
    const definition = findModel(name)!;
    const params = resolveParams(definition, undefined, {});
    const model = definition.create(params, undefined);
    const adapter = createAdapter(name, params, model, null);
    const unevaluated = model.invariants.map((invariant) => invariant.name)
      .filter((invariant) => !adapter.evaluatedInvariants.includes(invariant));
    assert.equal(unevaluated, [], name);
  }
});

test.run();
