// TwoPhase.tla's actions and its variables as traces show them (sets and functions in ITF).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildTrace, traceToItf } from '../../checker/trace.js';
import { WordReader, WordWriter } from '../../checker/words.js';
import {
  createTwoPhaseModel,
  initialState,
  step,
  type TwoPhaseState,
} from '../../models/calibration/twophase.js';

test('TMCommit needs every RM prepared; TMAbort only from init', () => {
  let state = initialState(2);
  assert.is(step(state, { type: 'TMCommit' }), null);
  state = step(state, { type: 'RMPrepare', rm: 0 })!;
  state = step(state, { type: 'RMPrepare', rm: 1 })!;
  assert.is(step(state, { type: 'RMPrepare', rm: 1 }), null);
  state = step(state, { type: 'TMRcvPrepared', rm: 0 })!;
  assert.is(
    step(state, { type: 'TMRcvPrepared', rm: 0 }),
    state,
    'receiving twice changes nothing',
  );
  state = step(state, { type: 'TMRcvPrepared', rm: 1 })!;
  const committed = step(state, { type: 'TMCommit' })!;
  assert.is(committed.tmState, 'committed');
  assert.is(step(committed, { type: 'TMAbort' }), null);
  assert.is(step(committed, { type: 'RMRcvAbortMsg', rm: 0 }), null);
  assert.equal(step(committed, { type: 'RMRcvCommitMsg', rm: 0 })!.rmState, [
    'committed',
    'prepared',
  ]);
});

test('the hand codec round-trips states of 9 RMs (two words of RMs)', () => {
  const model = createTwoPhaseModel(9);
  let state = initialState(9);
  state = step(state, { type: 'RMPrepare', rm: 8 })!;
  state = step(state, { type: 'TMRcvPrepared', rm: 8 })!;
  state = step(state, { type: 'RMChooseToAbort', rm: 0 })!;
  state = step(state, { type: 'TMAbort' })!;
  const out = new WordWriter();
  model.codec.encode(state, out);
  assert.is(out.length, 3);
  assert.equal(model.codec.decode(new WordReader(out.words, 0, out.length)), state);
});

test('a TwoPhase trace shows msgs as a set of records and rmState as a function', () => {
  const model = createTwoPhaseModel(2);
  const actions = model.actions(model.initialStates()[0]!);
  const prepare = actions.findIndex((action) => model.label(action) === 'RMPrepare(r2)');
  const abort = actions.findIndex((action) => model.label(action) === 'TMAbort');
  const trace = buildTrace(
    model,
    { model: 'twophase', params: { rms: 2 }, bug: undefined },
    { initialIndex: 0, actionIndexes: [prepare, abort] },
    undefined,
  );
  assert.equal(
    trace.steps.map((entry) => entry.label),
    ['RMPrepare(r2)', 'TMAbort'],
  );
  assert.equal(trace.states[2]!['msgs'], {
    '#set': [{ type: 'Abort' }, { rm: 'r2', type: 'Prepared' }],
  });
  assert.equal(trace.states[1]!['rmState'], {
    '#map': [
      ['r1', 'working'],
      ['r2', 'prepared'],
    ],
  });
  assert.equal(Object.keys(trace.steps[1]!.changed), ['tmState', 'msgs']);
  const itf = traceToItf(trace);
  assert.equal(itf.vars, ['rmState', 'tmState', 'tmPrepared', 'msgs']);
  assert.equal(itf.states[2]!['#meta'], { index: 2, action: 'TMAbort' });
});

/** Every (action index, encoded successor) of `state`, through `next` and the codec. */
function successorsByStep(model: ReturnType<typeof createTwoPhaseModel>, state: TwoPhaseState) {
  const found: [number, number[]][] = [];
  model.actions(state).forEach((action, index) => {
    const successor = model.next(state, action);
    if (successor === null) return;
    const out = new WordWriter();
    model.codec.encode(successor, out);
    found.push([index, [...out.words.subarray(0, out.length)]]);
  });
  return found;
}

test('successorWords agrees with step on every reachable state of 3 and of 9 RMs', () => {
  for (const [rms, limit] of [
    [3, Infinity],
    [9, 3000],
  ] as const) {
    const model = createTwoPhaseModel(rms);
    const queue = [...model.initialStates()];
    const seen = new Set(queue.map((state) => JSON.stringify(state)));
    for (let head = 0; head < queue.length && head < limit; head++) {
      const state = queue[head]!;
      const input = new WordWriter();
      model.codec.encode(state, input);
      const out = new WordWriter();
      const fast: [number, number[]][] = [];
      model.successorWords!(input.words, 0, input.length, out, (index) => {
        fast.push([index, [...out.words.subarray(0, out.length)]]);
      });
      assert.equal(fast, successorsByStep(model, state));
      for (const action of model.actions(state)) {
        const successor = model.next(state, action);
        const key = JSON.stringify(successor);
        if (successor !== null && !seen.has(key)) {
          seen.add(key);
          queue.push(successor);
        }
      }
    }
    if (rms === 3) assert.is(seen.size, 288, 'every state of TLC count 288 was compared');
  }
});

test.run();
