// A schedule the runtime cannot follow is reported at its step, with the differing field or
// the input the runtime lacks, never as a reproduction or a clean run. Step numbers are found
// in the kept trace by action type (labels may change; the actions' fields do not).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keptTrace, replayKept } from './helpers.js';

/** The step number of the `occurrence`-th action of type `type` in a kept trace. */
function stepOf(model: string, bug: string, type: string, occurrence = 1): number {
  const steps = keptTrace(model, bug).steps.filter((step) =>
    (step.action as { type: string }).type === type);
  return steps[occurrence - 1]!.step;
}

test('skip-config: the runtime\'s driver never re-plans over an in-flight next', async () => {
  // The second PlanNext comes while the first intent is in flight: in the model a late copy
  // of the driver's plan proposal applies there; the replay's controller log holds no such
  // copy (the runtime's driver proposes a plan only when next is empty, and the replay
  // commits what it proposed before the intent went in flight).
  const outcome = await replayKept('migration', 'skip-config', false);
  const step = stepOf('migration', 'skip-config', 'PlanNext', 2);
  assert.is(outcome.result, 'diverged');
  if (outcome.result !== 'diverged') return;
  assert.is(outcome.step, step);
  assert.is(outcome.reason, 'controller.next.num: spec 3, runtime 2');
  assert.is(outcome.steps.length, step);
  assert.ok(outcome.steps.slice(0, -1).every((report) => report.agrees));
  assert.is(outcome.steps.at(-1)!.agrees, false);
});

test('an action with no runtime input diverges at its step, saying why', async () => {
  const expiry = await replayKept('migration', 'expiry-forgets-session', false);
  assert.is(expiry.result, 'diverged');
  if (expiry.result === 'diverged') {
    assert.is(expiry.step, stepOf('migration', 'expiry-forgets-session', 'ExpireSessions'));
    assert.match(expiry.reason, 'ExpireSessions is not replayed');
  }
});

test('snapshot-rollback: the shell\'s own assertion stops the rollback', async () => {
  // With the bug a follower takes a snapshot older than its commit index (Raft §7 forbids
  // it); the node shell asserts that a snapshot never goes back and fails the server.
  const outcome = await replayKept('raft', 'snapshot-rollback', false);
  const step = keptTrace('raft', 'snapshot-rollback').steps.length;
  assert.is(outcome.result, 'diverged');
  if (outcome.result !== 'diverged') return;
  assert.is(outcome.step, step);
  assert.match(outcome.reason,
    'a server failed: g1-2: AssertionError: a snapshot never goes back');
  assert.ok(outcome.steps.slice(0, -1).every((report) => report.agrees));
});

test.run();
