// Liveness under weak fairness (issue 10.3): lassos, stuttering ends, per-actor classes,
// Tarjan without recursion, and replay of a lasso. Expected lassos are derived by hand from
// each small model's transition table (an independent source), not read back from the code.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defineModel, integer, type ModelSpec } from '../../checker/define-model.js';
import { buildStateGraph, checkLiveness } from '../../checker/liveness.js';
import { stronglyConnectedComponents } from '../../checker/graph-scc.js';
import { buildLassoTrace, formatLasso, lassoToItf } from '../../checker/liveness-trace.js';
import type { AnyModel, Params } from '../../checker/model.js';
import { replayTrace } from '../../checker/replay.js';
import type { Trace } from '../../checker/trace.js';
import { createTwoPhaseModel } from '../../models/calibration/twophase.js';
import { runCli } from '../helpers/cli.js';
import { crossingDefinition, mailboxDefinition, recoveryDefinition } from './liveness-models.js';

const labels = (model: AnyModel, lasso: { readonly actionIndexes: readonly number[] }) => {
  let state = model.initialStates()[0];
  return lasso.actionIndexes.map((index) => {
    const action = model.actions(state)[index];
    state = model.next(state, action)!;
    return model.label(action);
  });
};

test('TwoPhase: every RM decides and commit leads to all committed under WF (3 and 5 RMs)', () => {
  for (const [rms, states] of [[3, 288], [5, 8832]] as const) {
    const result = checkLiveness(createTwoPhaseModel(rms));
    assert.is(result.result, 'ok');
    assert.equal(result.properties, ['EveryRmDecides', 'CommitLeadsToAllCommitted']);
    // TLC's figures: the graph holds exactly the states the safety search counts.
    assert.is(result.distinctStates, states);
  }
});

test('check runs the liveness pass after a clean search; --no-liveness skips it', async () => {
  const checked = await runCli('check', 'twophase', '--quiet', '--json');
  assert.is(checked.code, 0);
  const liveness = checked.json<{ liveness: Record<string, unknown> }>().liveness;
  assert.is(liveness['result'], 'ok');
  assert.is(liveness['distinctStates'], 288);
  assert.is(liveness['edges'], 761, 'from the code itself: 288 states, stutter steps dropped');
  const skipped = await runCli('check', 'twophase', '--quiet', '--json', '--no-liveness');
  assert.is(skipped.json()['liveness'], undefined);
});

test('TwoPhase without the TM fair: all RMs prepare, then the TM stutters forever', () => {
  const model = { ...createTwoPhaseModel(3), fairness: { weakLabelPrefixes: ['RM'] } };
  const result = checkLiveness(model);
  assert.is(result.result, 'violation');
  assert.is(result.property, 'EveryRmDecides');
  assert.equal(labels(model, result.lasso!), ['RMPrepare(r1)', 'RMPrepare(r2)', 'RMPrepare(r3)']);
  assert.is(result.lasso!.loop, 3, 'the last state stutters');
});

test('a liveness pass stopped by --max-states is incomplete, never ok', () => {
  const result = checkLiveness(createTwoPhaseModel(3), { maxStates: 100 });
  assert.is(result.result, 'incomplete');
  assert.is(result.stoppedBy, 'max-states');
  assert.is(result.distinctStates, 100, 'the --max-states limit given');
});

test('no fairness at all: the initial state may stutter forever (TLC without WF)', () => {
  const model = { ...createTwoPhaseModel(2), fairness: undefined };
  const result = checkLiveness(model);
  assert.equal(result.lasso, { initialIndex: 0, actionIndexes: [], loop: 0 });
});

test('a wedging driver gives a lasso: Delete, then Ask / Retry forever (loop 1)', () => {
  const model = recoveryDefinition.build({ wedge: 'yes' });
  const result = checkLiveness(model);
  assert.is(result.result, 'violation');
  assert.is(result.property, 'EventuallyPublished');
  assert.equal(labels(model, result.lasso!), ['Delete', 'Ask', 'Retry']);
  assert.is(result.lasso!.loop, 1);
  assert.is(checkLiveness(recoveryDefinition.build({ wedge: 'no' })).result, 'ok');
});

test('weak fairness per message excludes a cycle that starves Deliver(0)', () => {
  const perMessage = checkLiveness(mailboxDefinition.build({ fairness: 'per-message' }));
  assert.is(perMessage.result, 'ok');
  const model = mailboxDefinition.build({ fairness: 'per-family' });
  const perFamily = checkLiveness(model);
  assert.is(perFamily.result, 'violation');
  assert.equal(labels(model, perFamily.lasso!), ['Deliver(1)', 'Resend']);
  assert.is(perFamily.lasso!.loop, 0);
  const none = checkLiveness(mailboxDefinition.build({ fairness: 'none' }));
  assert.equal(none.lasso, { initialIndex: 0, actionIndexes: [], loop: 0 });
});

test('a class names the message, not its place in the bag (weakClass reads the state)', () => {
  // The bag is sorted: sending "a" pushes "b" from place 0 to place 1. Delivering "a" and
  // sending it again forever starves "b"; by place, "DeliverAt(0)" is taken on that cycle.
  const bag = (byContent: boolean) =>
    defineModel({
      name: 'bag',
      description: 'sorted bag',
      create: (): ModelSpec<readonly string[], number | 'SendA'> => ({
        initialStates: () => [['b']],
        actions: () => [0, 1, 'SendA'],
        next: (messages, action) => {
          if (action === 'SendA') return messages.includes('a') ? null : ['a', ...messages];
          return action < messages.length ? messages.filter((_, index) => index !== action) : null;
        },
        invariants: {},
        properties: [{ name: 'BDelivered', kind: 'eventually', holds: (m) => !m.includes('b') }],
        fairness: {
          weakClass: (action, messages) =>
            action === 'SendA' ? null : byContent ? messages[action]! : `DeliverAt(${action})`,
        },
      }),
    });
  const byPlace = bag(false);
  const result = checkLiveness(byPlace.build(byPlace.defaults));
  assert.is(result.result, 'violation', 'the position class wrongly counts as taken');
  assert.equal(result.lasso, { initialIndex: 0, actionIndexes: [2, 0], loop: 0 });
  const byContent = bag(true);
  assert.is(checkLiveness(byContent.build(byContent.defaults)).result, 'ok');
});

test('weak, not strong: an action enabled on one state of a cycle need not be taken', () => {
  const model = crossingDefinition.build({ lights: 3 });
  const result = checkLiveness(model);
  assert.equal(labels(model, result.lasso!), ['Change', 'Change', 'Change']);
  assert.is(result.lasso!.loop, 0);
});

test('leadsTo: the trigger state starts the violation; states before it may satisfy Q', () => {
  // x counts 0..3 then sticks; "x = 2 ~> x = 0" fails (stutters at 3), "x = 1 ~> x = 3" holds.
  const counter = (target: number, from: number) =>
    defineModel({
      name: 'counter',
      description: 'leadsTo test',
      create: (): ModelSpec<number, 'Inc'> => ({
        initialStates: () => [0],
        actions: () => ['Inc'],
        next: (x) => (x < 3 ? x + 1 : null),
        invariants: {},
        properties: [
          {
            name: 'LeadsTo',
            kind: 'leadsTo',
            trigger: (x) => x === from,
            holds: (x) => x === target,
          },
        ],
        fairness: { weakLabelPrefixes: ['Inc'] },
      }),
    });
  const failing = counter(0, 2);
  const result = checkLiveness(failing.build(failing.defaults));
  assert.is(result.result, 'violation');
  assert.equal(result.lasso, { initialIndex: 0, actionIndexes: [0, 0, 0], loop: 3 });
  const holding = counter(3, 1);
  assert.is(checkLiveness(holding.build(holding.defaults)).result, 'ok');
});

test('Tarjan is iterative: a 200,000-state chain and a 200,000-state ring', () => {
  const ring = defineModel({
    name: 'ring',
    description: 'deep graph',
    params: {
      size: integer({ description: 'states', default: 200_000 }),
      closed: integer({ description: '1: ring, 0: chain', default: 1 }),
    },
    create: ({ size, closed }): ModelSpec<number, 'Next'> => ({
      initialStates: () => [0],
      actions: () => ['Next'],
      next: (x) => (x + 1 < size ? x + 1 : closed ? 0 : null),
      invariants: {},
      codec: { encode: (x, out) => out.push(x), decode: (input) => input.next() },
    }),
  });
  for (const closed of [0, 1]) {
    const graph = buildStateGraph(ring.build({ size: 200_000, closed }));
    const inside = new Uint8Array(graph.stateCount).fill(1);
    const components = stronglyConnectedComponents(graph, inside);
    assert.is(components.count, closed ? 1 : 200_000);
  }
});

test('a lasso trace replays as a violation of its property; a broken one is invalid', () => {
  const params: Params = { wedge: 'yes' };
  const model = recoveryDefinition.create(params, undefined);
  const lasso = checkLiveness(model).lasso!;
  const identity = { model: 'recovery', params, bug: undefined };
  const trace = buildLassoTrace(model, identity, lasso, 'EventuallyPublished');
  assert.is(trace.loop, 1);
  assert.match(formatLasso(trace), 'After step 3 the behaviour is back in state 1');
  assert.is(lassoToItf(trace).loop, 1);
  const replayed = replayTrace(recoveryDefinition, JSON.parse(JSON.stringify(trace)));
  assert.equal(replayed, {
    result: 'violation',
    steps: 3,
    invariant: 'EventuallyPublished',
    step: 3,
    loop: 1,
  });
  const open: Trace = { ...trace, loop: 0 };
  const notClosed = replayTrace(recoveryDefinition, open);
  assert.is(notClosed.result, 'invalid');
  assert.match((notClosed as { reason: string }).reason, 'does not close');
});

test('replay refuses a cycle that starves a fair class, and an unfair stutter', () => {
  const params: Params = { fairness: 'per-family' };
  const familyModel = mailboxDefinition.create(params, undefined);
  const lasso = checkLiveness(familyModel).lasso!;
  const identity = { model: 'mailbox', params, bug: undefined };
  const trace = buildLassoTrace(familyModel, identity, lasso, 'FirstDelivered');
  assert.is(replayTrace(mailboxDefinition, trace).result, 'violation');
  const perMessage = { ...trace, params: { fairness: 'per-message' } };
  const starved = replayTrace(mailboxDefinition, perMessage);
  assert.equal(starved, {
    result: 'invalid',
    step: 2,
    reason: 'the cycle is unfair: Deliver(0) is enabled throughout and never taken',
  });
  const stutter = { ...trace, steps: [], states: [trace.states[0]!], loop: 0 };
  const unfairStutter = replayTrace(mailboxDefinition, stutter);
  assert.match((unfairStutter as { reason: string }).reason, 'the final stuttering is unfair');
});

test.run();
