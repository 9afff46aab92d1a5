// The step function input by input: what is ignored, the term rule, what is saved (and only
// that), the conflict hint, snapshots, PreVote, CheckQuorum and ReadIndex, with the cases the
// golden scenarios and the model do not reach.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialNode, step } from '../../spec/raft/index.js';
import { logEntriesArray, logEntriesOf } from '../../spec/raft/log-entries.js';
import { initialProgress } from '../../spec/raft/progress.js';
import type {
  Effect,
  Entry,
  Input,
  Message,
  RaftNode,
  RaftOptions,
  Step,
} from '../../spec/raft/types.js';

type Node = RaftNode<string, readonly string[]>;
type Sent = Message<string, readonly string[]>;

const follower = (id = 0, size = 3): Node => initialNode(id, size);
const message = (from: number, body: Sent): Input<string, readonly string[]> => ({
  type: 'message',
  from,
  message: body,
});
const types = (result: Step<string, readonly string[]>) => result.effects.map((e) => e.type);
const sends = (result: Step<string, readonly string[]>) =>
  result.effects.filter((effect) => effect.type === 'send') as Extract<
    Effect<string, readonly string[]>,
    { type: 'send' }
  >[];
const entries = (...terms: number[]): Entry<string>[] =>
  terms.map((term, index) => ({ term, command: `c${index + 1}` }));

/**
 * s1 as leader of term 1 of a cluster of `size` (its no-op at index 1, uncommitted), its
 * storage's report of the no-op delivered unless `durable` is false.
 */
function leader(size = 3, options: RaftOptions = {}, durable = true): Node {
  let node = step(follower(0, size), { type: 'electionTimeout' }, options).node;
  const vote: Sent = { type: 'RequestVoteResponse', term: 1, voteGranted: true };
  node = step(node, message(1, vote), options).node;
  assert.is(node.role, 'leader');
  if (durable) node = step(node, { type: 'logDurable', index: 1, term: 1 }, options).node;
  return node;
}

const appendResponse = (fields: Partial<Extract<Sent, { type: 'AppendEntriesResponse' }>>) =>
  ({
    type: 'AppendEntriesResponse',
    term: 1,
    success: true,
    matchIndex: 0,
    conflictTerm: 0,
    conflictIndex: 0,
    readSequence: 0,
    ...fields,
  }) as const;

test('inputs a node ignores change nothing and ask for nothing', () => {
  const node = follower();
  for (const input of [
    { type: 'heartbeat' },
    { type: 'snapshot', index: 0, data: [] },
  ] as const) {
    const result = step(node, input);
    assert.is(result.node, node, input.type);
    assert.equal(result.effects, [], input.type);
  }
  const chief = leader();
  assert.is(step(chief, { type: 'electionTimeout' }).node, chief, 'no CheckQuorum: no-op');
});

test('a proposal says where it landed, or that it was refused and who leads', () => {
  const refused = step({ ...follower(1), leader: 0 }, { type: 'propose', commands: ['x'] });
  assert.equal(refused.effects, [{ type: 'proposalRefused', leader: 0 }]);
  const chief = leader();
  const landed = step(chief, { type: 'propose', commands: ['a', 'b'] });
  assert.equal(types(landed), ['saveEntries', 'proposed', 'sendSoon']);
  assert.equal(landed.effects[1], { type: 'proposed', index: 2, term: 1, count: 2 });
  assert.throws(() => step(chief, { type: 'propose', commands: [] }), /at least one command/);
  // One server commits its proposal once its storage reports it: the proposer heard first.
  const elected = step(follower(0, 1), { type: 'electionTimeout' }).node;
  const alone = step(elected, { type: 'logDurable', index: 1, term: 1 }).node;
  const appended = step(alone, { type: 'propose', commands: ['x'] });
  assert.equal(types(appended), ['saveEntries', 'proposed', 'sendSoon']);
  const committed = step(appended.node, { type: 'logDurable', index: 2, term: 1 });
  assert.equal(types(committed), ['saveHardState', 'apply']);
});

test('leaderReady follows the apply of the own term\'s no-op, once (§6.4)', () => {
  const proposed = step(leader(), { type: 'propose', commands: ['a'] }).node;
  const chief = step(proposed, { type: 'logDurable', index: 2, term: 1 }).node;
  const ready = step(chief, message(1, appendResponse({ matchIndex: 2 })));
  assert.equal(ready.effects.slice(-2), [
    { type: 'apply', entries: [{ index: 1, term: 1, command: null },
      { index: 2, term: 1, command: 'a' }] },
    { type: 'leaderReady', term: 1, index: 1 },
  ]);
  const more = step(ready.node, { type: 'propose', commands: ['b'] }).node;
  const later = step(more, { type: 'logDurable', index: 3, term: 1 }).node;
  const again = step(later, message(1, appendResponse({ matchIndex: 3 })));
  assert.ok(types(again).includes('apply'));
  assert.not.ok(types(again).includes('leaderReady'), 'ready once per term');
  // Figure 8's bug commits an earlier term's entry alone: not ready for that.
  const old: Node = { ...follower(0), currentTerm: 1, log: logEntriesOf(entries(1)) };
  let risen = step(old, { type: 'electionTimeout' }).node;
  const vote: Sent = { type: 'RequestVoteResponse', term: 2, voteGranted: true };
  risen = step(risen, message(1, vote)).node;
  risen = step(risen, { type: 'logDurable', index: 2, term: 2 }).node;
  const early = step(risen, message(1, appendResponse({ term: 2, matchIndex: 1 })),
    { bugs: { 'commit-prev-term': true } });
  assert.is(early.node.commitIndex, 1);
  assert.not.ok(types(early).includes('leaderReady'));
});

test('leadershipLost comes first after the saves; the role\'s timers change last', () => {
  const chief = leader();
  const deposed = step(chief, message(2, appendResponse({ term: 7, success: false })));
  assert.equal(types(deposed), ['saveHardState', 'leadershipLost', 'setTimer', 'cancelTimer']);
  assert.equal(deposed.effects[1], { type: 'leadershipLost', term: 1 });
  assert.equal(deposed.effects.slice(2), [
    { type: 'setTimer', timer: 'election' }, { type: 'cancelTimer', timer: 'heartbeat' },
  ]);
  // With CheckQuorum a leader kept its election timer: only the heartbeat stops.
  const leased = leader(3, { checkQuorum: true });
  const stepped = step(leased, { type: 'electionTimeout' }, { checkQuorum: true });
  assert.equal(types(stepped), ['leadershipLost', 'setTimer', 'cancelTimer']);
  assert.equal(stepped.effects.at(-1), { type: 'cancelTimer', timer: 'heartbeat' });
});

test('which timer runs in which role: set on entering a role, cancelled on leaving it', () => {
  const campaign = step(follower(), { type: 'electionTimeout' });
  assert.equal(campaign.effects.filter((e) => e.type.endsWith('Timer')), [
    { type: 'setTimer', timer: 'election' }, { type: 'setTimer', timer: 'heartbeat' },
  ]);
  const vote: Sent = { type: 'RequestVoteResponse', term: 1, voteGranted: true };
  const won = step(campaign.node, message(1, vote));
  assert.equal(won.effects.filter((e) => e.type.endsWith('Timer')),
    [{ type: 'cancelTimer', timer: 'election' }], 'a leader without CheckQuorum needs none');
  const leased = step(step(follower(), { type: 'electionTimeout' }, { checkQuorum: true }).node,
    message(1, vote), { checkQuorum: true });
  assert.not.ok(leased.effects.some((e) => e.type.endsWith('Timer')), 'both keep running');
  const restarted = step(won.node, { type: 'restart', persisted: {
    hardState: { currentTerm: 1, votedFor: 0, commitIndex: 0 }, snapshot: null, entries: [],
  } });
  assert.equal(restarted.effects, [{ type: 'setTimer', timer: 'election' }]);
});

test('a single server elects itself, commits its no-op once its storage reports it', () => {
  const result = step(follower(0, 1), { type: 'electionTimeout' });
  assert.is(result.node.role, 'leader');
  assert.equal(result.effects.slice(0, 2), [
    { type: 'saveEntries', fromIndex: 1, entries: [{ term: 1, command: null }],
      sync: 'thenReport' },
    { type: 'saveHardState', hardState: { currentTerm: 1, votedFor: 0, commitIndex: 0 },
      sync: 'beforeSends' },
  ]);
  assert.not.ok(types(result).includes('apply'), 'not durable yet: not counted');
  const reported = step(result.node, { type: 'logDurable', index: 1, term: 1 });
  assert.equal(reported.effects, [
    { type: 'saveHardState', hardState: { currentTerm: 1, votedFor: 0, commitIndex: 1 },
      sync: 'withNext' },
    { type: 'apply', entries: [{ index: 1, term: 1, command: null }] },
    { type: 'leaderReady', term: 1, index: 1 },
  ]);
});

test('sync duties (etcd MustSync, §10.2.1): the leader sends before its append is durable', () => {
  const node = leader(3, {}, false);
  assert.equal(node.progress.map((progress) => progress.match), [0, 0, 0],
    'the no-op is not durable yet');
  const proposed = step(node, { type: 'propose', commands: ['x'] });
  assert.equal(proposed.effects[0], {
    type: 'saveEntries', fromIndex: 2, entries: [{ term: 1, command: 'x' }], sync: 'thenReport',
  });
  const sent = step(proposed.node, { type: 'heartbeat', peer: 1 });
  assert.equal(types(sent), ['send'], 'AppendEntries leave with no save to wait for');
  // s2 acknowledges both entries: a quorum of followers is not enough without s1's own copy.
  const acknowledged = step(sent.node, message(1, appendResponse({ matchIndex: 2 })));
  assert.is(acknowledged.node.commitIndex, 0);
  // A report the log does not match there changes nothing; the right one commits both.
  const stale = step(acknowledged.node, { type: 'logDurable', index: 2, term: 7 });
  assert.is(stale.node, acknowledged.node);
  const reported = step(acknowledged.node, { type: 'logDurable', index: 2, term: 1 });
  assert.is(reported.node.commitIndex, 2);
  assert.equal(reported.effects[0], {
    type: 'saveHardState', hardState: { currentTerm: 1, votedFor: 0, commitIndex: 2 },
    sync: 'withNext',
  });
  // A follower's own report is ignored: it counts nothing of its own.
  const ignored = step(follower(), { type: 'logDurable', index: 0, term: 0 });
  assert.equal(ignored.effects, []);
});

test('the term rule and the vote are saved once, before the reply is sent (§5.1)', () => {
  const request: Sent = { type: 'RequestVoteRequest', term: 3, lastLogIndex: 0, lastLogTerm: 0 };
  const result = step(follower(), message(1, request));
  assert.equal(types(result), ['saveHardState', 'setTimer', 'send']);
  assert.equal(result.effects[0], {
    type: 'saveHardState',
    hardState: { currentTerm: 3, votedFor: 1, commitIndex: 0 },
    sync: 'beforeSends',
  });
  const again = step(result.node, message(2, { ...request, lastLogIndex: 5 }));
  assert.equal(again.effects, [
    { type: 'send', to: 2, message: { type: 'RequestVoteResponse', term: 3, voteGranted: false } },
  ]);
});

test('forget-vote-on-restart leaves the vote out of the saved hard state', () => {
  const options = { bugs: { 'forget-vote-on-restart': true } };
  const result = step(follower(), { type: 'electionTimeout' }, options);
  const saved = result.effects[0];
  assert.ok(saved?.type === 'saveHardState');
  assert.is(saved.hardState.votedFor, null);
  const persisted = { hardState: saved.hardState, snapshot: null, entries: [] };
  const restarted = step(follower(), { type: 'restart', persisted });
  assert.is(restarted.node.votedFor, null);
});

test('a leader commits only its own term; commit-prev-term counts replicas (Figure 8)', () => {
  const old: Node = {
    ...leader(),
    currentTerm: 2,
    log: logEntriesOf(entries(1, 2)),
    progress: [2, 1, 0].map((match) => ({ ...initialProgress(2), match })),
  };
  const response = message(1, appendResponse({ term: 2, matchIndex: 1 }));
  assert.is(step(old, response).node.commitIndex, 0);
  const buggy = step(old, response, { bugs: { 'commit-prev-term': true } });
  assert.is(buggy.node.commitIndex, 1);
});

test('a rejecting follower names the conflicting term and its first index (§5.3)', () => {
  const node: Node = { ...follower(1), currentTerm: 3, log: logEntriesOf(entries(1, 1, 2, 2)) };
  const request = (prevLogIndex: number, prevLogTerm: number): Sent => ({
    type: 'AppendEntriesRequest',
    term: 3,
    prevLogIndex,
    prevLogTerm,
    entries: [],
    leaderCommit: 0,
    readSequence: 0,
  });
  const reply = (result: Step<string, readonly string[]>) => sends(result)[0]!.message;
  assert.equal(reply(step(node, message(0, request(4, 3)))), {
    ...appendResponse({ term: 3, success: false, conflictTerm: 2, conflictIndex: 3 }),
  });
  assert.equal(reply(step(node, message(0, request(7, 3)))), {
    ...appendResponse({ term: 3, success: false, conflictTerm: 0, conflictIndex: 5 }),
  });
});

test('the leader skips back past a whole conflicting term in one round trip (§5.3)', () => {
  const chief: Node = {
    ...leader(),
    currentTerm: 3,
    log: logEntriesOf(entries(1, 1, 3, 3, 3)),
    progress: [0, 1, 2].map(() => initialProgress(5)),
  };
  const rejected = (conflictTerm: number, conflictIndex: number) =>
    step(
      chief,
      message(1, appendResponse({ term: 3, success: false, conflictTerm, conflictIndex })),
    ).node.progress[1]!.next;
  assert.is(rejected(2, 3), 3, 'no entry of term 2: resume at the follower’s first index');
  assert.is(rejected(1, 1), 3, 'entries of term 1 up to 2: resume after them');
  assert.is(rejected(0, 2), 2, 'a short follower log: resume after its end');
  assert.is(rejected(0, 9), 5, 'a stale hint still backs off by one');
});

/** A batch of `terms` after `prevLogIndex` from leader s1 of term 2, as a runtime sends it. */
function batch(prevLogIndex: number, prevLogTerm: number, terms: readonly number[]): Sent {
  return {
    type: 'AppendEntriesRequest',
    term: 2,
    prevLogIndex,
    prevLogTerm,
    entries: terms.map((term, index) => ({ term, command: `b${index}` })),
    leaderCommit: 0,
    readSequence: 0,
  };
}

test('a batch truncates at its first conflict, saving from there only', () => {
  const stale: Node = { ...follower(1), currentTerm: 2, log: logEntriesOf(entries(1, 1)) };
  const result = step(stale, message(0, batch(1, 1, [2])));
  assert.equal(logEntriesArray(result.node.log), [...entries(1), { term: 2, command: 'b0' }]);
  assert.equal(result.effects[0], {
    type: 'saveEntries',
    fromIndex: 2,
    entries: [{ term: 2, command: 'b0' }],
    sync: 'beforeSends',
  });
  // A reordered, shorter batch that matches truncates nothing and saves nothing.
  const again = step(result.node, message(0, batch(0, 0, [1])));
  assert.is(again.node.log, result.node.log);
  assert.equal(types(again), ['setTimer', 'send']);
});

test('a leader sends up to maxEntriesPerAppend entries; none beyond its log', () => {
  let chief = leader();
  chief = step(chief, { type: 'propose', commands: ['a', 'b', 'c'] }).node;
  const batchOf = (options: RaftOptions) => {
    const [sent] = sends(step(chief, { type: 'heartbeat', peer: 1 }, options));
    assert.ok(sent?.message.type === 'AppendEntriesRequest');
    return sent.message.entries.length;
  };
  assert.is(batchOf({}), 1, 'one by default');
  assert.is(batchOf({ maxEntriesPerAppend: 0 }), 0, 'a heartbeat');
  assert.is(batchOf({ maxEntriesPerAppend: 10 }), 4, 'the no-op and the three commands');
});

test('flow control: an entry goes once per round trip, heartbeats carry none (issue 27.4)', () => {
  const options: RaftOptions = { maxEntriesPerAppend: 8, maxInflightAppends: 2 };
  let chief = leader(3, options);
  chief = step(chief, { type: 'propose', commands: ['a'] }, options).node;
  const sentTo = (node: Node) => {
    const result = step(node, { type: 'heartbeat', peer: 1 }, options);
    const [sent] = sends(result);
    assert.ok(sent?.message.type === 'AppendEntriesRequest');
    return { node: result.node, message: sent.message };
  };
  // The probe goes once; the heartbeats after it name the match (0) and carry nothing.
  const probe = sentTo(chief);
  assert.equal([probe.message.prevLogIndex, probe.message.entries.length], [0, 2]);
  const again = sentTo(probe.node);
  assert.equal([again.message.prevLogIndex, again.message.entries.length], [0, 0]);
  // Accepted: streaming; a new entry goes once, the heartbeats after it carry nothing.
  let node = step(again.node, message(1, appendResponse({ matchIndex: 2 })), options).node;
  assert.is(node.progress[1]!.state, 'replicate');
  node = step(node, { type: 'propose', commands: ['b'] }, options).node;
  const streamed = sentTo(node);
  assert.equal([streamed.message.prevLogIndex, streamed.message.entries.length], [2, 1]);
  const beat = sentTo(streamed.node);
  assert.equal([beat.message.prevLogIndex, beat.message.entries.length, beat.message.leaderCommit],
    [3, 0, 1], 'a heartbeat after the stream carries the commit index only');
  // The follower lost the entry: it refuses the heartbeat and the leader probes from 3 again.
  const refused = appendResponse({ success: false, conflictTerm: 0, conflictIndex: 3 });
  node = step(beat.node, message(1, refused), options).node;
  assert.equal([node.progress[1]!.state, node.progress[1]!.next], ['probe', 3]);
  assert.equal(sentTo(node).message.entries.length, 1);
});

test('maxBytesPerAppend bounds an append; an entry larger than it goes alone', () => {
  const big = 'x'.repeat(100);
  const options: RaftOptions = { maxEntriesPerAppend: 8, maxBytesPerAppend: 64 };
  let chief = leader(3, options);
  chief = step(chief, { type: 'propose', commands: ['a', 'b', big, 'c'] }, options).node;
  const batchAt = (next: number) => {
    const node = { ...chief, progress: chief.progress.map((p) => ({ ...p, next })) };
    const [sent] = sends(step(node, { type: 'heartbeat', peer: 1 }, options));
    assert.ok(sent?.message.type === 'AppendEntriesRequest');
    return sent.message.entries.map((entry) => entry.command ?? 'noop');
  };
  assert.equal(batchAt(1), ['noop', 'a', 'b'], 'small entries up to the bound');
  assert.equal(batchAt(4), [big], 'a large entry alone');
  assert.equal(batchAt(5), ['c']);
});

test('InstallSnapshot: stale refused, old acknowledged, a conflicting log dropped (§7)', () => {
  const snapshot = { lastIncludedIndex: 2, lastIncludedTerm: 1, data: ['c1', 'c2'] };
  const install: Sent = { type: 'InstallSnapshotRequest', term: 2, snapshot };
  const ahead: Node = { ...follower(1), currentTerm: 3 };
  assert.equal(sends(step(ahead, message(0, install)))[0]!.message, {
    type: 'InstallSnapshotResponse',
    term: 3,
    matchIndex: 0,
  });
  const matching: Node = { ...follower(1), currentTerm: 2, log: logEntriesOf(entries(1, 1, 2)) };
  const kept = step(matching, message(0, install));
  assert.equal(logEntriesArray(kept.node.log), [{ term: 2, command: 'c3' }],
    'the suffix after it stays');
  const expected = ['saveSnapshot', 'saveHardState', 'setTimer', 'restoreSnapshot', 'send'];
  assert.equal(types(kept), expected);
  const conflicting: Node = { ...follower(1), currentTerm: 2, log: logEntriesOf(entries(1, 2, 2)) };
  const dropped = step(conflicting, message(0, install));
  assert.equal(logEntriesArray(dropped.node.log), []);
  assert.equal(dropped.effects[1], {
    type: 'saveEntries', fromIndex: 3, entries: [], sync: 'beforeSends',
  });
  const known = step({ ...kept.node }, message(0, install));
  assert.equal(types(known), ['setTimer', 'send'], 'already committed: only acknowledged');
});

test('PreVote: no term is raised until a quorum would vote (§9.6)', () => {
  const options = { preVote: true };
  const pre = step(follower(), { type: 'electionTimeout' }, options);
  assert.is(pre.node.role, 'precandidate');
  assert.is(pre.node.currentTerm, 0);
  assert.ok(!types(pre).some((type) => type.startsWith('save')), 'nothing to save');
  const [request] = sends(step(pre.node, { type: 'heartbeat', peer: 1 }, options));
  assert.equal(request?.message, {
    type: 'PreVoteRequest',
    term: 1,
    lastLogIndex: 0,
    lastLogTerm: 0,
  });
  const voter = step(follower(1), message(0, request!.message), options);
  assert.is(voter.node.currentTerm, 0, 'a pre-vote changes no term');
  assert.equal(types(voter), ['send']);
  const answer = sends(voter)[0]!.message;
  const candidate = step(pre.node, message(1, answer), options);
  assert.is(candidate.node.role, 'candidate');
  assert.is(candidate.node.currentTerm, 1);
  assert.equal(candidate.effects[0], {
    type: 'saveHardState',
    hardState: { currentTerm: 1, votedFor: 0, commitIndex: 0 },
    sync: 'beforeSends',
  });
});

test('CheckQuorum: the lease ignores votes; a leader without a quorum steps down (§9.6)', () => {
  const options = { checkQuorum: true };
  const request: Sent = { type: 'RequestVoteRequest', term: 5, lastLogIndex: 9, lastLogTerm: 4 };
  const leased: Node = { ...follower(1), currentTerm: 1, leader: 0 };
  const ignored = step(leased, message(2, request), options);
  assert.is(ignored.node, leased);
  assert.equal(ignored.effects, []);
  assert.is(step(leased, message(2, request)).node.currentTerm, 5, 'without the lease');
  const chief = leader(3, options);
  const alone = step(chief, { type: 'electionTimeout' }, options);
  assert.is(alone.node.role, 'follower');
  assert.is(alone.node.currentTerm, 1);
  const heard = step(chief, message(1, appendResponse({ matchIndex: 1 })), options).node;
  const kept = step(heard, { type: 'electionTimeout' }, options).node;
  assert.is(kept.role, 'leader');
  assert.is(kept.recentlyActive, 0, 'the next period starts afresh');
});

test('ReadIndex: refused off the leader, served once confirmed and own term committed', () => {
  assert.equal(step(follower(), { type: 'readIndex', requestId: 4 }).effects, [
    { type: 'readRefused', requestId: 4 },
  ]);
  let chief = step(leader(), { type: 'readIndex', requestId: 4 }).node;
  const [sent] = sends(step(chief, { type: 'heartbeat', peer: 1 }));
  assert.ok(sent?.message.type === 'AppendEntriesRequest');
  assert.is(sent.message.readSequence, 1);
  // A reply to a request sent before the read confirms nothing.
  const stale = step(chief, message(1, appendResponse({ readSequence: 0 })));
  assert.equal(stale.node.pendingReads[0]!.acknowledged, 0b001);
  // Confirmed, but the no-op of term 1 is not committed yet: the read waits.
  const confirmed = step(chief, message(1, appendResponse({ readSequence: 1 })));
  assert.is(confirmed.node.pendingReads.length, 1);
  // Confirmation and commit of the no-op in one reply: served at index 1.
  const ready = step(chief, message(1, appendResponse({ matchIndex: 1, readSequence: 1 })));
  assert.equal(ready.effects.at(-1), { type: 'readReady', requestId: 4, index: 1 });
  assert.equal(ready.node.pendingReads, []);
  // A leader that steps down refuses what is pending.
  chief = step(chief, message(2, appendResponse({ term: 7, success: false }))).node;
  assert.is(chief.role, 'follower');
  const refused = step(leader(), { type: 'readIndex', requestId: 5 }).node;
  const deposed = step(refused, message(2, appendResponse({ term: 7, success: false })));
  assert.ok(deposed.effects.some((e) => e.type === 'readRefused' && e.requestId === 5));
});

test('a read\'s round asks the fewest followers heard from that make a quorum (§6.4)', () => {
  const leaderOfFive = (options: RaftOptions = {}) => {
    let node = step(follower(0, 5), { type: 'electionTimeout' }, options).node;
    const vote: Sent = { type: 'RequestVoteResponse', term: 1, voteGranted: true };
    for (const voter of [1, 2]) node = step(node, message(voter, vote), options).node;
    assert.is(node.role, 'leader');
    return step(node, { type: 'logDurable', index: 1, term: 1 }, options).node;
  };
  const checking = { checkQuorum: true, readRoundToQuorum: true };
  const peersOf = (chief: Node) => {
    const [soon] = step(chief, { type: 'readIndex', requestId: 1 }, checking).effects;
    assert.ok(soon?.type === 'sendSoon');
    return soon.peers;
  };
  // Nobody heard from yet (CheckQuorum off, or a new period): every follower, a plain sendSoon.
  assert.is(peersOf(leaderOfFive()), undefined);
  let chief = leaderOfFive(checking);
  assert.is(chief.recentlyActive, 0);
  chief = step(chief, message(4, appendResponse({ matchIndex: 1 })), checking).node;
  // One follower heard of the two a quorum of five needs: still every follower.
  assert.is(peersOf(chief), undefined);
  chief = step(chief, message(3, appendResponse({ matchIndex: 1 })), checking).node;
  chief = step(chief, message(2, appendResponse({ matchIndex: 1 })), checking).node;
  // Three heard (s3, s4, s5): the two of lowest id, never one not heard from (s2).
  assert.is(chief.recentlyActive, 0b11100);
  assert.is(peersOf(chief), 0b01100);
  // Without the option every follower is asked, heard from or not.
  const [plain] = step(chief, { type: 'readIndex', requestId: 2 }, { checkQuorum: true }).effects;
  assert.equal(plain, { type: 'sendSoon' });
  // A new CheckQuorum period forgets who was heard: every follower again.
  chief = step(chief, { type: 'electionTimeout' }, checking).node;
  assert.is(chief.role, 'leader');
  assert.is(peersOf(chief), undefined);
});

test('a message from outside the cluster or from itself is a loud error', () => {
  const vote: Sent = { type: 'RequestVoteResponse', term: 1, voteGranted: true };
  assert.throws(() => step(follower(), message(7, vote)), /unknown server 7/);
  assert.throws(() => step(follower(), message(0, vote)), /nothing to itself/);
});

test.run();
