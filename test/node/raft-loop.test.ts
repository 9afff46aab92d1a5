// The node shell's event loop (DESIGN §5, etcd's Ready): a step's saves are durable before its
// other effects, and client commands that arrive while a sync runs are proposed together as
// one batch with one sync (group commit); a batch hears where it landed from the step.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { layoutOf, SimCluster } from './sim-cluster.js';

test('commands that arrive during a sync are proposed as one batch (group commit)', async () => {
  const layout = layoutOf(1, [100], 1, 4);
  const cluster = new SimCluster({ seed: 51, layout, recordSteps: true, syncDelayMs: 3 });
  await cluster.startAll();
  const admin = cluster.clerk('admin-0');
  const deadline = cluster.clock.now() + 10_000;
  assert.is((await cluster.settle(admin.join({ 100: ['g100-0'] }, deadline), 10_000)).status,
    'ok');
  const clerks = Array.from({ length: 8 }, (_, index) => cluster.clerk(`client-${index}`));
  for (const clerk of clerks) await cluster.settle(clerk.register(deadline), 10_000);
  const puts = clerks.map((clerk, index) => clerk.put(`k${index}`, `v${index}`, deadline));
  const outcomes = await cluster.settle(Promise.all(puts), 10_000);
  assert.ok(outcomes.every((outcome) => outcome.status === 'ok'));
  const batches = cluster.steps
    .filter((record) => record.node === 'g100-0')
    .map((record) => record.input as { type: string; commands?: unknown[] })
    .filter((input) => input.type === 'propose')
    .map((input) => input.commands!.length);
  // 8 puts (plus the driver's migration commands earlier) in fewer proposals than commands.
  const total = batches.reduce((sum, size) => sum + size, 0);
  assert.ok(Math.max(...batches) > 1, `batches ${batches.join(',')}`);
  assert.ok(batches.length < total, `batches ${batches.join(',')}`);
  for (let index = 0; index < 8; index++) {
    const got = await cluster.settle(admin.get(`k${index}`, deadline), 10_000);
    assert.equal(got, { status: 'ok', value: `v${index}` });
  }
  assert.equal(cluster.fatal, []);
});

test('step records number the steps of an incarnation from the restart (step 0)', async () => {
  const layout = layoutOf(3, [], 3, 4);
  const cluster = new SimCluster({ seed: 52, layout, recordSteps: true });
  await cluster.startAll();
  await cluster.run(1_000);
  for (const name of layout.controllers) {
    const records = cluster.steps.filter((record) => record.node === name);
    assert.equal(records.map((record) => record.step), records.map((_, index) => index));
    assert.is((records[0]!.input as { type: string }).type, 'restart');
  }
  // The records carry the step's effects: the leader's entries and hard state were saved.
  const types = cluster.steps.flatMap((record) => record.effects as { type: string }[])
    .map((effect) => effect.type);
  assert.ok(types.includes('saveEntries') && types.includes('saveHardState'));
  assert.equal(cluster.fatal, []);
});

test('a proposal learns where it landed or its refusal from the step, never from the role',
  async () => {
    const layout = layoutOf(3, [], 3, 4);
    const cluster = new SimCluster({ seed: 53, layout, recordSteps: true });
    await cluster.startAll();
    await cluster.run(1_000);
    const deadline = cluster.clock.now() + 10_000;
    const clerks = Array.from({ length: 8 }, (_, index) => cluster.clerk(`client-${index}`));
    for (const clerk of clerks) {
      assert.is((await cluster.settle(clerk.register(deadline), 10_000)).status, 'ok');
    }
    const proposals = cluster.steps.filter((record) =>
      (record.input as { type: string }).type === 'propose');
    const outcomes = proposals.map((record) => (record.effects as { type: string }[])
      .filter((effect) => effect.type === 'proposed' || effect.type === 'proposalRefused'));
    // Each propose step answers its batch exactly once; clients that asked a follower first
    // were refused by that follower's step and went on to the leader.
    assert.ok(outcomes.every((found) => found.length === 1), 'one answer per batch');
    const kinds = outcomes.map((found) => found[0]!.type);
    assert.ok(kinds.includes('proposed') && kinds.includes('proposalRefused'), kinds.join());
    // The leader's driver started on leaderReady: exactly one per leadership here.
    const ready = cluster.steps.filter((record) =>
      (record.effects as { type: string }[]).some((effect) => effect.type === 'leaderReady'));
    assert.is(ready.length, 1);
    assert.equal(cluster.leaders(layout.controllers), [ready[0]!.node]);
    assert.equal(cluster.fatal, []);
  });

test.run();
