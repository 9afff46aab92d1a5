// When a server snapshots (impl/node/snapshot-policy.ts): never without --max-raft-state,
// past the bound as the MIT lab does, after a delete, and once the log holds a quarter of the
// snapshot (never under the 16 KiB floor), which keeps log + snapshot within 1.25 x the
// snapshot + the floor (issue 21's per-replica disk bound).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  compactionFloorBytes, compactionThresholdBytes, isSnapshotDue,
} from '../../impl/node/snapshot-policy.js';

const kib = 1024;

test('no bound: never due, not even after a delete (CONTRACT: no snapshots)', () => {
  assert.is(isSnapshotDue(null, { logBytes: 10 ** 9, snapshotBytes: 0 }, true), false);
});

test('a delete makes a snapshot due whatever the log holds', () => {
  assert.is(isSnapshotDue(64 * kib, { logBytes: 34, snapshotBytes: 0 }, true), true);
});

test('a small bound is the threshold (the simulator draws 4 and 16 KiB: unchanged)', () => {
  assert.is(compactionThresholdBytes(1000, 0), 1000);
  assert.is(compactionThresholdBytes(4 * kib, 10 ** 6), 4 * kib);
  assert.is(compactionThresholdBytes(16 * kib, 10 ** 6), 16 * kib);
  assert.is(isSnapshotDue(1000, { logBytes: 1000, snapshotBytes: 0 }, false), false);
  assert.is(isSnapshotDue(1000, { logBytes: 1001, snapshotBytes: 0 }, false), true);
});

test('under a large bound: the floor, then a quarter of the snapshot', () => {
  assert.is(compactionFloorBytes, 16 * kib);
  assert.is(compactionThresholdBytes(64 * kib, 0), 16 * kib);
  assert.is(compactionThresholdBytes(64 * kib, 40 * kib), 16 * kib);
  assert.is(compactionThresholdBytes(64 * kib, 128 * kib), 32 * kib);
  assert.is(compactionThresholdBytes(64 * kib, 10 * 2 ** 20), 64 * kib);
  assert.is(isSnapshotDue(64 * kib, { logBytes: 32 * kib, snapshotBytes: 128 * kib }, false),
    false);
  assert.is(isSnapshotDue(64 * kib, { logBytes: 32 * kib + 1, snapshotBytes: 128 * kib },
    false), true);
});

test('a nonpositive bound is a caller error', () => {
  assert.throws(() => compactionThresholdBytes(0, 0));
});

test.run();
