// Progress (spec/raft/progress.ts): one append per round trip in probe, a full window sends
// nothing, a reject returns to probe and backs off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  appendAccepted,
  appendRejected,
  canSend,
  heartbeatAnswered,
  initialProgress,
  progressConsistent,
  sentAppend,
} from '../../spec/raft/progress.js';

const window = { maxInflight: 2, maxInflightBytes: 1000 };

test('probe sends once per round trip; a heartbeat response allows a resend', () => {
  const sent = sentAppend(initialProgress(5), 5, 10);
  assert.is(canSend(sent, window), false);
  assert.is(canSend(heartbeatAnswered(sent), window), true);
});

test('a full window (count or bytes) sends nothing until an ack frees it', () => {
  let progress = appendAccepted(initialProgress(5), 5);
  assert.is(progress.state, 'replicate');
  progress = sentAppend(sentAppend(progress, 6, 10), 7, 10);
  assert.is(canSend(progress, window), false);
  assert.is(canSend(heartbeatAnswered(progress), window), false);
  progress = appendAccepted(progress, 6);
  assert.is(canSend(progress, window), true);
  assert.is(progress.inflights.length, 1);
  const big = sentAppend(appendAccepted(initialProgress(5), 5), 6, 1000);
  assert.is(canSend(big, window), false);
  assert.ok(progressConsistent(progress, window, 7));
});

test('a reject returns to probe, clears the window and backs next off to the hint', () => {
  const streaming = sentAppend(appendAccepted(initialProgress(9), 3), 9, 10);
  const probing = appendRejected(streaming, 10, 5);
  assert.equal([probing.state, probing.next, probing.inflights.length], ['probe', 5, 0]);
  assert.is(appendRejected(probing, 3, 1), probing);
  assert.ok(progressConsistent(probing, window, 3));
});

test.run();
