// Refinement of raft.tla (issue 10.5): every step of the `raft` model maps through the
// abstraction of spec/raft/refinement.ts onto raft.tla's actions (the transcription that
// counts TLC's 2,379,781 states). Counts are pinned from the code itself; the planted steps
// and the hand scenarios are derived by hand from raft.tla's actions.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breadthFirstSearch } from '../../checker/bfs.js';
import type { AnyModel } from '../../checker/model.js';
import type { ModelEnvelope, RaftBounds, RaftModelState } from '../../models/raft/model-state.js';
import { createRaftModel, raftLabel, type RaftAction } from '../../models/raft/model.js';
import { createRefinementModel } from '../../models/raft/refinement-model.js';
import { mapStep, tlaRaftFor, type StepMapping } from '../../models/raft/refinement.js';
import { forEachMapping } from '../../models/raft/refinement-figures.js';
import { tlaLabel } from '../../models/raft/tla-variables.js';
import { runCli } from '../helpers/cli.js';
import { logEntriesArray } from '../../spec/raft/log-entries.js';

const tiny: RaftBounds = {
  servers: 3,
  values: 1,
  maxTerm: 1,
  maxLog: 1,
  maxMsgs: 1,
  maxRestarts: 0,
  maxCompactions: 0,
  maxReads: 0,
};

const model = createRaftModel(tiny);
const raft = tlaRaftFor(3, 1);

/** Every transition from the states within the bounds, with how it maps (null: it does not). */
function mappingsAt(bounds: RaftBounds): { states: number; mappings: (StepMapping | null)[] } {
  const mappings: (StepMapping | null)[] = [];
  const states = forEachMapping(createRaftModel(bounds), raft, (mapping) => mappings.push(mapping));
  return { states, mappings };
}

test('every step maps onto raft.tla at one term, one entry, one message (counts from code)', () => {
  const { states, mappings } = mappingsAt(tiny);
  assert.is(states, 2435);
  const histogram: Record<string, number> = {};
  for (const mapping of mappings) {
    const bucket = mapping === null ? 'none' : `${mapping.tlaSteps}${mapping.deviation ?? ''}`;
    histogram[bucket] = (histogram[bucket] ?? 0) + 1;
  }
  // '0': a Sync that only makes the leader's no-op durable (raft.tla has no disk): a stutter.
  assert.equal(histogram, { '0': 528, '1': 13764, '2': 252, '3': 114, '4': 5007 });
});

test('check --refines prints the mapping figures of its states (exit 0)', async () => {
  const run = await runCli('check', 'raft', '--refines', 'raft.tla', '--max-term', '1',
    '--max-restarts', '0', '--max-compactions', '0', '--max-reads', '0', '--quiet');
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, '2435 distinct states, 19666 generated');
  assert.match(run.stdout, 'Refinement: 2,435 states, 19,665 transitions checked, every one ' +
    'maps: 13,764 onto one raft.tla action, 252 onto two raft.tla actions, 114 onto three ' +
    'raft.tla actions, 5,007 onto four raft.tla actions, 528 stutters');
});

test('the refinement model counts the states of the raft model and finds no unmapped step', () => {
  const plain = breadthFirstSearch(model as AnyModel);
  const refined = breadthFirstSearch(createRefinementModel(tiny) as AnyModel);
  assert.is(refined.result, 'ok');
  assert.is(refined.distinctStates, plain.distinctStates);
  assert.is(refined.statesGenerated, plain.statesGenerated);
});

function run(start: RaftModelState, ...actions: RaftAction[]): RaftModelState {
  return actions.reduce((state, action) => model.next(state, action)!, start);
}

function envelopeOf(state: RaftModelState, type: string, to: number): ModelEnvelope {
  const item = state.messages.find(
    (candidate) => candidate.envelope.message.type === type && candidate.envelope.to === to,
  );
  assert.ok(item, `no ${type} to s${to + 1}`);
  return item.envelope;
}

const deliver = (state: RaftModelState, type: string, to: number): RaftAction => ({
  type: 'Deliver',
  envelope: envelopeOf(state, type, to),
});

test('Timeout is raft.tla Timeout, a vote to itself, its receipt and the reply (4 actions)', () => {
  const initial = model.initialStates()[0]!;
  const after = run(initial, { type: 'Timeout', server: 0 });
  const mapping = mapStep(raft, initial, { type: 'Timeout', server: 0 }, after)!;
  assert.is(mapping.tlaSteps, 4);
  assert.equal(mapping.actions.map((action) => tlaLabel(action).split('(')[0]), [
    'Timeout',
    'RequestVote',
    'Receive',
    'Receive',
  ]);
});

test('planted steps that raft.tla does not take map onto nothing', () => {
  const initial = model.initialStates()[0]!;
  const timeout: RaftAction = { type: 'Timeout', server: 0 };
  const after = run(initial, timeout);
  // A candidate that does not vote for itself: raft.tla's self-vote sets votedFor.
  const servers = after.servers.slice();
  servers[0] = { ...servers[0]!, votedFor: null };
  assert.is(mapStep(raft, initial, timeout, { ...after, servers }), null);
  // A vote granted (votedFor set) whose reply says refused.
  const asked = run(after, { type: 'Heartbeat', server: 0, peer: 1 });
  const request = deliver(asked, 'RequestVoteRequest', 1);
  const granted = run(asked, request);
  const messages = granted.messages.map((item) => ({
    ...item,
    envelope: { ...item.envelope, message: { ...item.envelope.message, voteGranted: false } },
  }));
  assert.ok(mapStep(raft, asked, request, granted));
  assert.is(mapStep(raft, asked, request, { ...granted, messages }), null);
});

test('a late AppendEntries: raft.tla lowers the commit index, ours keeps it (a deviation)', () => {
  const unbounded = createRaftModel({ ...tiny, maxMsgs: 3 });
  const go = (start: RaftModelState, ...actions: RaftAction[]) =>
    actions.reduce((state, action) => unbounded.next(state, action)!, start);
  let state = go(unbounded.initialStates()[0]!, { type: 'Timeout', server: 0 },
    { type: 'Heartbeat', server: 0, peer: 1 });
  state = go(state, deliver(state, 'RequestVoteRequest', 1));
  state = go(state, deliver(state, 'RequestVoteResponse', 0));
  state = go(state, { type: 'Heartbeat', server: 0, peer: 1 });
  const late = envelopeOf(state, 'AppendEntriesRequest', 1);
  state = go(state, { type: 'Duplicate', envelope: late }, { type: 'Deliver', envelope: late });
  state = go(state, deliver(state, 'AppendEntriesResponse', 0), { type: 'Sync', server: 0 });
  assert.is(state.servers[0]!.commitIndex, 1, 's1 committed its no-op');
  state = go(state, { type: 'Heartbeat', server: 0, peer: 1 });
  const fresh = state.messages.find((item) => item.envelope.message !== late.message)!.envelope;
  state = go(state, { type: 'Deliver', envelope: fresh });
  assert.is(state.servers[1]!.commitIndex, 1);
  const action: RaftAction = { type: 'Deliver', envelope: late };
  const after = go(state, action);
  assert.is(after.servers[1]!.commitIndex, 1, 'the late copy (commit 0) lowers nothing');
  const mapping = mapStep(raft, state, action, after)!;
  assert.is(mapping.deviation, 'follower-keeps-commit', raftLabel(action));
  assert.is(mapping.tlaSteps, 1);
});

test('a crash before the leader synced its no-op loses it; raft.tla keeps it (a deviation)', () => {
  const crashing = createRaftModel({ ...tiny, maxRestarts: 1 });
  const go = (start: RaftModelState, ...actions: RaftAction[]) =>
    actions.reduce((state, action) => crashing.next(state, action)!, start);
  let state = go(crashing.initialStates()[0]!, { type: 'Timeout', server: 0 },
    { type: 'Heartbeat', server: 0, peer: 1 });
  state = go(state, deliver(state, 'RequestVoteRequest', 1));
  state = go(state, deliver(state, 'RequestVoteResponse', 0));
  assert.is(state.servers[0]!.log.length, 1, 'the leader wrote its no-op');
  const restart: RaftAction = { type: 'Restart', server: 0 };
  const after = go(state, restart);
  assert.equal(logEntriesArray(after.servers[0]!.log), [], 'not synced: lost');
  const mapping = mapStep(raft, state, restart, after)!;
  assert.is(mapping.deviation, 'restart-loses-unsynced');
  assert.equal(mapping.actions.map((action) => tlaLabel(action).split('(')[0]), ['Restart']);
  // Synced first, the restart keeps it, and maps exactly.
  const synced = go(state, { type: 'Sync', server: 0 });
  const kept = go(synced, restart);
  assert.is(kept.servers[0]!.log.length, 1);
  assert.is(mapStep(raft, synced, restart, kept)!.deviation, undefined);
});

test('check --refines raft.tla: ok at small bounds; compaction, PreVote refused', async () => {
  const flags = ['--max-term', '1', '--max-restarts', '0', '--max-compactions', '0'];
  const checked = await runCli('check', 'raft', '--refines', 'raft.tla', ...flags,
    '--max-reads', '0', '--quiet', '--json');
  assert.is(checked.code, 0, checked.stderr);
  const summary = checked.json<{ distinctStates: number; invariantsChecked: string[] }>();
  assert.is(summary.distinctStates, 2435);
  assert.ok(summary.invariantsChecked.includes('RefinesRaftTla'));
  const compacting = await runCli('check', 'raft', '--refines', 'raft.tla', '--quiet');
  assert.is(compacting.code, 2);
  assert.match(compacting.stderr, /snapshots have no raft\.tla action/);
  const preVote = await runCli('check', 'raft', '--refines', 'raft.tla', '--pre-vote',
    '--max-compactions', '0', '--quiet');
  assert.is(preVote.code, 2);
});

test.run();
