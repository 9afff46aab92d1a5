// The node-local Raft functions one by one: guards (null when not enabled), the term rule, the
// persist-before-send ordering, and the cases the golden scenarios do not reach.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  advanceCommitIndex,
  appendEntries,
  becomeLeader,
  clientRequest,
  compactLog,
  handleAppendEntriesRequest,
  handleInstallSnapshotRequest,
  handleInstallSnapshotResponse,
  initialServer,
  installSnapshot,
  receive,
  requestVote,
  restart,
  timeout,
} from '../../spec/raft/index.js';
import type { RaftServer, Step } from '../../spec/raft/types.js';

const follower = (id = 0, size = 3): RaftServer => initialServer(id, size);
const serverOf = (step: Step | null): RaftServer => {
  assert.ok(step, 'the step is enabled');
  return step.server;
};

/** s1 as leader of term 1 in a cluster of `size`, with `values` appended. */
function leader(size = 3, values = 0): RaftServer {
  let server = serverOf(timeout(follower(0, size)));
  for (let peer = 1; peer < size; peer++) {
    server = receive(server, peer, {
      type: 'RequestVoteResponse',
      term: 1,
      voteGranted: true,
    }).server;
  }
  server = serverOf(becomeLeader(server));
  for (let value = 0; value < values; value++) server = serverOf(clientRequest(server, value));
  return server;
}

test('guards: each step is enabled only in its role (§5.2, §5.3)', () => {
  const server = follower();
  assert.is(requestVote(server, 1), null);
  assert.is(becomeLeader(server), null);
  assert.is(clientRequest(server, 0), null);
  assert.is(appendEntries(server, 1), null);
  assert.is(advanceCommitIndex(server), null);
  assert.is(installSnapshot(server, 1), null);
  assert.is(compactLog(server, 1), null);
  const candidate = serverOf(timeout(server));
  assert.is(requestVote(candidate, 0), null, 'no request to itself');
  assert.is(becomeLeader(candidate), null, 'one vote of three is no quorum');
  const chief = leader();
  assert.is(timeout(chief), null);
  assert.is(appendEntries(chief, 0), null, 'no request to itself');
  assert.is(advanceCommitIndex(chief), null, 'nothing to commit');
});

test('a single server elects itself and commits alone', () => {
  const alone = serverOf(becomeLeader(serverOf(timeout(follower(0, 1)))));
  const appended = serverOf(clientRequest(alone, 3));
  const committed = advanceCommitIndex(appended);
  assert.equal(committed?.effects, [{ type: 'apply', entries: [{ index: 1, term: 1, value: 3 }] }]);
});

test('the term rule and the vote are persisted once, before the reply is sent (§5.1)', () => {
  const step = receive(follower(), 1, {
    type: 'RequestVoteRequest',
    term: 3,
    lastLogIndex: 0,
    lastLogTerm: 0,
  });
  assert.equal(
    step.effects.map((effect) => effect.type),
    ['persist', 'setTimer', 'send'],
  );
  assert.equal(step.effects[0], {
    type: 'persist',
    state: {
      currentTerm: 3,
      votedFor: 1,
      log: [],
      snapshot: { lastIncludedIndex: 0, lastIncludedTerm: 0, values: [] },
    },
  });
  const again = receive(step.server, 2, {
    type: 'RequestVoteRequest',
    term: 3,
    lastLogIndex: 5,
    lastLogTerm: 3,
  });
  assert.equal(again.effects, [
    { type: 'send', to: 2, message: { type: 'RequestVoteResponse', term: 3, voteGranted: false } },
  ]);
});

test('forget-vote-on-restart leaves the vote out of what is persisted', () => {
  const step = timeout(follower(), { forgetVoteOnRestart: true });
  const persisted = step?.effects[0];
  assert.ok(persisted?.type === 'persist');
  assert.is(persisted.state.votedFor, null);
  assert.is(serverOf(restart(0, 3, persisted.state)).votedFor, null);
});

test('a leader commits only its own term; commit-prev-term counts replicas (Figure 8)', () => {
  const old = { ...leader(3, 1), currentTerm: 2, matchIndex: [1, 1, 0] };
  assert.is(advanceCommitIndex(old), null);
  assert.is(serverOf(advanceCommitIndex(old, { commitPrevTerm: true })).commitIndex, 1);
});

test('compaction keeps the last index and the values; InstallSnapshot carries them (§7)', () => {
  const committed = { ...leader(3, 2), commitIndex: 1 };
  assert.is(compactLog(committed, 2), null, 'entry 2 is not committed');
  const compacted = serverOf(compactLog(committed, 1));
  assert.equal(compacted.snapshot, { lastIncludedIndex: 1, lastIncludedTerm: 1, values: [0] });
  assert.equal(compacted.log, [{ term: 1, value: 1 }]);
  const lagging = { ...compacted, nextIndex: [3, 1, 3] };
  assert.is(appendEntries(lagging, 1), null);
  const sent = installSnapshot(lagging, 1);
  assert.equal(sent?.effects, [
    {
      type: 'send',
      to: 1,
      message: { type: 'InstallSnapshotRequest', term: 1, snapshot: compacted.snapshot },
    },
  ]);
  const acknowledged = handleInstallSnapshotResponse(lagging, 1, {
    type: 'InstallSnapshotResponse',
    term: 1,
    matchIndex: 1,
  });
  assert.equal(acknowledged.server.matchIndex, [2, 1, 0]);
  assert.equal(acknowledged.server.nextIndex, [3, 2, 3]);
});

test('InstallSnapshot: stale terms refused, an old snapshot acknowledged, a new one kept', () => {
  const snapshot = { lastIncludedIndex: 2, lastIncludedTerm: 1, values: [0, 1] };
  const ahead = { ...follower(1), currentTerm: 2 };
  const stale = handleInstallSnapshotRequest(ahead, 0, {
    type: 'InstallSnapshotRequest',
    term: 1,
    snapshot,
  });
  assert.equal(stale.effects, [
    { type: 'send', to: 0, message: { type: 'InstallSnapshotResponse', term: 2, matchIndex: 0 } },
  ]);
  const matching = {
    ...follower(1),
    currentTerm: 1,
    log: [
      { term: 1, value: 0 },
      { term: 1, value: 1 },
      { term: 1, value: 2 },
    ],
  };
  const kept = handleInstallSnapshotRequest(matching, 0, {
    type: 'InstallSnapshotRequest',
    term: 1,
    snapshot,
  });
  assert.equal(
    kept.server.log,
    [{ term: 1, value: 2 }],
    'the suffix after a matching snapshot stays',
  );
  assert.is(kept.server.commitIndex, 2);
  const known = handleInstallSnapshotRequest({ ...matching, commitIndex: 2 }, 0, {
    type: 'InstallSnapshotRequest',
    term: 1,
    snapshot,
  });
  assert.equal(
    known.effects.map((effect) => effect.type),
    ['setTimer', 'send'],
  );
  const restarted = restart(1, 3, kept.server);
  assert.equal(
    restarted.effects.map((effect) => effect.type),
    ['restoreSnapshot', 'setTimer'],
  );
  assert.is(restarted.server.commitIndex, 2);
});

test('AppendEntries below the snapshot is acknowledged: those entries are committed', () => {
  const compacted = {
    ...follower(1),
    currentTerm: 1,
    snapshot: { lastIncludedIndex: 2, lastIncludedTerm: 1, values: [0, 1] },
    commitIndex: 2,
  };
  const step = handleAppendEntriesRequest(compacted, 0, {
    type: 'AppendEntriesRequest',
    term: 1,
    prevLogIndex: 0,
    prevLogTerm: 0,
    entries: [{ term: 1, value: 0 }],
    leaderCommit: 1,
  });
  assert.equal(step.effects[1], {
    type: 'send',
    to: 0,
    message: { type: 'AppendEntriesResponse', term: 1, success: true, matchIndex: 2 },
  });
});

/** A batch of `entries` after `prevLogIndex` (term 2 leader s1), as a runtime may send. */
function batch(prevLogIndex: number, prevLogTerm: number, terms: readonly number[]) {
  return {
    type: 'AppendEntriesRequest' as const,
    term: 2,
    prevLogIndex,
    prevLogTerm,
    entries: terms.map((term, value) => ({ term, value: 10 + value })),
    leaderCommit: 0,
  };
}

const replyOf = (step: Step) => step.effects.find((effect) => effect.type === 'send');

test('a batch is appended whole: the reply claims only what the log holds (§5.3)', () => {
  const empty = { ...follower(1), currentTerm: 2 };
  const step = handleAppendEntriesRequest(empty, 0, batch(0, 0, [1, 2, 2]));
  assert.equal(step.server.log, [
    { term: 1, value: 10 },
    { term: 2, value: 11 },
    { term: 2, value: 12 },
  ]);
  assert.equal(replyOf(step), {
    type: 'send',
    to: 0,
    message: { type: 'AppendEntriesResponse', term: 2, success: true, matchIndex: 3 },
  });
});

test('a batch truncates at its first conflict and keeps matching entries before it', () => {
  const log = [
    { term: 1, value: 10 },
    { term: 1, value: 9 },
  ];
  const stale = { ...follower(1), currentTerm: 2, log };
  const step = handleAppendEntriesRequest(stale, 0, batch(0, 0, [1, 2]));
  assert.equal(step.server.log, [
    { term: 1, value: 10 },
    { term: 2, value: 11 },
  ]);
  // A reordered, shorter batch that matches truncates nothing (§5.3: only a conflict does).
  const again = handleAppendEntriesRequest(step.server, 0, batch(0, 0, [1]));
  assert.is(again.server.log, step.server.log);
  assert.is(again.effects[0]?.type, 'setTimer', 'nothing to persist');
});

test('a batch reaching past the snapshot appends the entries after it', () => {
  const compacted = {
    ...follower(1),
    currentTerm: 2,
    snapshot: { lastIncludedIndex: 2, lastIncludedTerm: 1, values: [10, 11] },
    commitIndex: 2,
  };
  const step = handleAppendEntriesRequest(compacted, 0, batch(0, 0, [1, 1, 2]));
  assert.equal(step.server.log, [{ term: 2, value: 12 }]);
  assert.equal(replyOf(step), {
    type: 'send',
    to: 0,
    message: { type: 'AppendEntriesResponse', term: 2, success: true, matchIndex: 3 },
  });
});

test('a leader batches up to maxEntries; one round trip replicates and commits them all', () => {
  const chief = leader(3, 3);
  const sent = (step: Step | null) => {
    const effect = step?.effects[0];
    assert.ok(effect?.type === 'send' && effect.message.type === 'AppendEntriesRequest');
    return effect.message;
  };
  assert.equal(sent(appendEntries(chief, 1)).entries, [{ term: 1, value: 0 }], 'one by default');
  assert.equal(sent(appendEntries(chief, 1, 0)).entries, [], 'a heartbeat');
  const request = sent(appendEntries(chief, 1, 5));
  assert.is(request.entries.length, 3);
  const followed = receive({ ...follower(1), currentTerm: 1 }, 0, request);
  assert.is(followed.server.log.length, 3);
  const response = replyOf(followed);
  assert.ok(response?.type === 'send');
  const counted = receive(chief, 1, response.message);
  assert.equal(counted.server.matchIndex, [3, 3, 0]);
  assert.is(serverOf(advanceCommitIndex(counted.server)).commitIndex, 3);
});

test('a message from outside the cluster is a loud error', () => {
  assert.throws(
    () => receive(follower(), 7, { type: 'RequestVoteResponse', term: 1, voteGranted: true }),
    /unknown server 7/,
  );
});

test.run();
