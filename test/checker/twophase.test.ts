// TwoPhase.tla's actions and its variables as traces show them (sets and functions in ITF).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildTrace, traceToItf } from '../../checker/trace.js';
import { WordReader, WordWriter } from '../../checker/words.js';
import { createTwoPhaseModel, initialState, step } from '../../spec/calibration/twophase.js';

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

test.run();
