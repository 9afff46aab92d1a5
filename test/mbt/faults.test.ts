// Issue 23 item 3: faults planted in the node shell (impl/node/shell-faults.ts, off in every
// real run) are found by mbt as divergences within a small budget, each shrunk to a trace that
// replay --runtime reproduces with the fault and runs clean without it. The budgets are
// seeded walks (deterministic); the comments say where each fault is found.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ShellFaults } from '../../impl/node/shell-faults.js';
import { findModel } from '../../models/registry.js';
import { replayInRuntime } from '../../verify/replay/runtime-replay.js';
import { run, target, walks } from './helpers.js';

/** Two entries, two values, three terms: room for an overwritten entry and a snapshot. */
const deeper = { 'max-log': '2', values: '2', 'max-term': '3' };

const cases: readonly {
  readonly fault: keyof ShellFaults;
  readonly bounds: Readonly<Record<string, string>>;
  readonly budget: { walks: number; depth: number; seed: number };
  readonly reason: RegExp;
}[] = [
  // A candidate's vote for itself is the first hard state with a vote: step 1.
  { fault: 'skipVoteSave', bounds: {}, budget: { walks: 5, depth: 30, seed: 1 },
    reason: /^persisted\.s\d\.hardState/ },
  // A read at a leader answered as it arrives, before a quorum confirmed it.
  { fault: 'readBeforeApply', bounds: {}, budget: { walks: 20, depth: 30, seed: 1 },
    reason: /answered read 1 before the spec released it/ },
  // A follower (or a restart) restoring a snapshot one index low.
  { fault: 'snapshotIndexOff', bounds: deeper, budget: { walks: 40, depth: 40, seed: 1 },
    reason: /state machine is at index \d+ but \d+ entries were applied or restored/ },
  // A deposed leader's client acknowledged for the entry a new leader wrote there: the
  // deepest (walks to the first find for seeds 1, 2, 3: 206, 58, 36).
  { fault: 'replyOverwritten', bounds: deeper, budget: { walks: 60, depth: 60, seed: 3 },
    reason: /acknowledged the command proposed at index \d+ in term \d+, where the spec committed term \d+'s entry/ },
];

for (const { fault, bounds, budget, reason } of cases) {
  test(`${fault}: found, shrunk, reproduced by replay --runtime, clean without it`, async () => {
    const faulty = target('raft', bounds, { [fault]: true });
    const outcome = await run(faulty, walks(faulty, budget));
    assert.is(outcome.result, 'diverged');
    if (outcome.result !== 'diverged') return;
    assert.match(outcome.reason, reason);
    assert.ok(outcome.trace.steps.length <= outcome.found, 'the shrunk trace is no longer');
    assert.is(outcome.step, outcome.trace.steps.length, 'it fails at its last step');
    const definition = findModel('raft')!;
    const replayed = await replayInRuntime(definition, outcome.trace,
      { withoutBug: false, faults: { [fault]: true } });
    assert.ok(replayed.result !== 'clean', 'replay --runtime reproduces it');
    const correct = await replayInRuntime(definition, outcome.trace, { withoutBug: false });
    assert.is(correct.result, 'clean', 'the correct shell follows the same schedule');
  });
}

test.run();
