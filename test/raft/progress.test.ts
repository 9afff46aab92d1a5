// Progress (spec/raft/progress.ts): one append per round trip in probe, a full window sends
// nothing, a reject returns to probe and backs off; without a window, raft.tla's resending.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  appendAccepted,
  appendRejected,
  canSend,
  heartbeatAnswered,
  heartbeatPrevious,
  initialProgress,
  progressConsistent,
  sentAppend,
  sentSnapshot,
  windowOf,
} from '../../spec/raft/progress.js';

const window = { maxInflight: 2, maxInflightBytes: 1000 };

test('probe sends once per round trip; a heartbeat response allows a resend', () => {
  const sent = sentAppend(initialProgress(5), 5, 10, window);
  assert.is(canSend(sent, window), false);
  assert.is(heartbeatPrevious(sent), 0, 'the heartbeat names the match, never refused');
  assert.is(canSend(heartbeatAnswered(sent), window), true);
  assert.is(canSend(appendAccepted(sent, 0, window), window), true, 'an ack of nothing new');
});

test('an accepted probe streams from just after the match', () => {
  const accepted = appendAccepted(sentAppend(initialProgress(9), 9, 10, window), 4, window);
  assert.equal([accepted.state, accepted.match, accepted.next], ['replicate', 4, 5]);
});

test('a full window (count or bytes) sends nothing until an ack frees it', () => {
  let progress = appendAccepted(initialProgress(5), 5, window);
  assert.is(progress.state, 'replicate');
  progress = sentAppend(sentAppend(progress, 6, 10, window), 7, 10, window);
  assert.is(progress.next, 8);
  assert.is(heartbeatPrevious(progress), 7, 'a heartbeat after the stream: a lost tail is refused');
  assert.is(canSend(progress, window), false);
  assert.is(canSend(heartbeatAnswered(progress), window), false);
  progress = appendAccepted(progress, 6, window);
  assert.is(canSend(progress, window), true);
  assert.is(progress.inflights.length, 1);
  const big = sentAppend(appendAccepted(initialProgress(5), 5, window), 6, 1000, window);
  assert.is(canSend(big, window), false);
  assert.ok(progressConsistent(progress, window, 7));
  assert.not.ok(progressConsistent(progress, window, 6), 'next beyond the leader log');
  assert.not.ok(progressConsistent(progress, { ...window, maxInflight: 0 }, 7), 'over the window');
});

test('a reject returns to probe, clears the window and backs next off to the hint', () => {
  const streaming = sentAppend(appendAccepted(initialProgress(9), 3, window), 9, 10, window);
  const probing = appendRejected(streaming, 5);
  assert.equal([probing.state, probing.next, probing.inflights.length], ['probe', 5, 0]);
  assert.is(appendRejected(probing, 9).next, 4, 'a late hint still backs off by one');
  assert.is(appendRejected(appendRejected(probing, 1), 1).next, 4, 'never below match + 1');
  assert.ok(progressConsistent(probing, window, 9));
  assert.not.ok(progressConsistent({ ...streaming, state: 'probe' }, window, 9),
    'a probe with inflights');
});

test('a snapshot is answered like a probe', () => {
  const streaming = appendAccepted(initialProgress(9), 3, window);
  const sent = sentSnapshot(streaming, window);
  assert.equal([sent.state, sent.probeSent, canSend(sent, window)], ['probe', true, false]);
  assert.equal(appendAccepted(sent, 8, window).next, 9);
});

test('no window: always probe, always send, next moves only on replies (raft.tla)', () => {
  assert.is(windowOf({}), null);
  assert.is(windowOf({ maxInflightAppends: 0 }), null);
  assert.equal(windowOf({ maxInflightAppends: 4 }),
    { maxInflight: 4, maxInflightBytes: Number.POSITIVE_INFINITY });
  const start = initialProgress(5);
  assert.is(sentAppend(start, 6, 10, null), start);
  assert.is(sentSnapshot(start, null), start);
  const accepted = appendAccepted(start, 6, null);
  assert.equal([accepted.state, accepted.match, accepted.next, canSend(accepted, null)],
    ['probe', 6, 7, true]);
  assert.ok(progressConsistent(accepted, null, 6));
  assert.not.ok(progressConsistent({ ...accepted, state: 'replicate' }, null, 6));
});

test.run();
