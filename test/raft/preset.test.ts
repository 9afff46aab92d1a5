// Calibration against TLC on Ongaro's raft.tla (issue 3): the preset's counts. The whole
// 3-server space (TLC's 2,379,781 states) is counted in tla-count.test.ts, of the full tier.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import { resolveParams } from '../../checker/params.js';
import { buildTrace } from '../../checker/trace.js';
import { raftDefinition } from '../../models/raft/index.js';
import { createTlaModel } from '../../models/raft/tla-preset.js';
import {
  appendEntry,
  dropLastEntry,
  entryOf,
  lastTerm,
  logEntry,
  logLength,
  withMessage,
  withoutMessage,
} from '../../models/raft/tla-state.js';

const bounds = (servers: number) => ({ servers, values: 1, maxTerm: 2, maxLog: 1, maxMsgs: 1 });

test('packed logs: append, drop, length, last term', () => {
  let log = 0;
  log = appendEntry(log, entryOf(1, 0));
  log = appendEntry(log, entryOf(2, 1));
  assert.is(logLength(log), 2);
  assert.is(lastTerm(log), 2);
  assert.is(logEntry(log, 1), entryOf(1, 0));
  assert.is(dropLastEntry(log), entryOf(1, 0));
  assert.is(dropLastEntry(dropLastEntry(log)), 0);
  assert.is(lastTerm(0), 0);
});

test('the bag counts copies; the last copy leaves its domain', () => {
  const once = withMessage([], 7, 0);
  const twice = withMessage(once, 7, 0);
  assert.equal(Array.from(twice), [7, 0, 2]);
  assert.equal(Array.from(withoutMessage(twice, 7, 0)), [7, 0, 1]);
  assert.equal(Array.from(withoutMessage(once, 7, 0)), []);
  assert.is(withoutMessage(once, 8, 0), once);
});

// From the code itself (TLC's figure is for three servers, below). One server: Timeout,
// RequestVote to itself, the vote, BecomeLeader, ClientRequest... with
// allLogs and elections as history; two servers: the space TLC's figure for three builds on.
for (const [servers, distinct, generated, depth] of [
  [1, 19, 66, 7],
  [2, 1760, 13797, 27],
] as const) {
  test(`raft.tla with ${servers} server(s): ${distinct} distinct, ${generated} generated`, () => {
    const result = breadthFirstSearch(createTlaModel(bounds(servers)) as never);
    assert.is(result.result, 'ok');
    assert.is(result.distinctStates, distinct);
    assert.is(result.statesGenerated, generated);
    assert.is(result.depth, depth);
  });
}

test('the preset builds through the registry and writes raft.tla variables in traces', () => {
  const params = resolveParams(raftDefinition, undefined, {
    preset: 'raft.tla',
    servers: '2',
    'max-term': '2',
    'max-log': '1',
    'max-msgs': '1',
  });
  const model = raftDefinition.create(params, undefined);
  const result = breadthFirstSearch(model, { maxStates: 400 });
  const trace = buildTrace(
    model,
    { model: 'raft', params, bug: undefined },
    { initialIndex: 0, actionIndexes: [2, 4, 7] },
    undefined,
  );
  assert.is(result.result, 'incomplete');
  assert.equal(
    trace.steps.map((step) => step.label),
    [
      'Timeout(s1)',
      'RequestVote(s1, s1)',
      // Servers named as in every label (issue 11.7), not by their index.
      'Receive({"mtype":"RequestVoteRequest","mterm":2,"mlastLogTerm":0,"mlastLogIndex":0,' +
        '"msource":"s1","mdest":"s1"})',
    ],
  );
  assert.equal(Object.keys(trace.states[0]!), [
    'messages',
    'elections',
    'allLogs',
    'currentTerm',
    'state',
    'votedFor',
    'log',
    'commitIndex',
    'votesResponded',
    'votesGranted',
    'voterLog',
    'nextIndex',
    'matchIndex',
  ]);
  assert.throws(
    () => raftDefinition.create({ ...params, symmetry: true }, undefined),
    /no --bug and no --symmetry/,
  );
});

test.run();
