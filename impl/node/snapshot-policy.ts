/**
 * When a server snapshots its applied state and compacts its log (`--max-raft-state BYTES`,
 * CONTRACT; the MIT lab's maxraftstate). Past the bound, as the lab does; and sooner, once the
 * log holds a quarter of the snapshot it follows (never under a 16 KiB floor), so that what a
 * replica keeps (log and snapshot) stays within 1.25 x its snapshot + the floor at every quiet
 * moment, not only the snapshot plus BYTES (issue 21: a group whose log never reached a
 * 64 KiB bound kept its whole history, 3-4 x the data it served). Writing a snapshot of S
 * bytes after S / 4 bytes of log costs at most 4 bytes written per byte logged. A delete frees
 * a moved-out shard, which leaves the disk only with the next snapshot: it makes one due.
 */
import { assert } from '../../spec/assert.js';
import type { StorageSizes } from '../io/storage.js';

/** Below this many bytes of log nothing but the bound or a delete makes a snapshot due. */
export const compactionFloorBytes = 16 * 1024;
/** A log that holds this many bytes per snapshot byte makes a snapshot due. */
export const logBytesPerSnapshotByte = 1 / 4;

/** The log bytes above which a snapshot is due, given the bound and the current snapshot. */
export function compactionThresholdBytes(boundBytes: number, snapshotBytes: number): number {
  assert(boundBytes > 0 && snapshotBytes >= 0, `bound ${boundBytes}, snapshot ${snapshotBytes}`);
  const relative = Math.max(compactionFloorBytes, snapshotBytes * logBytesPerSnapshotByte);
  return Math.min(boundBytes, relative);
}

/**
 * Whether the apply that just ran makes a snapshot due: never without a bound (CONTRACT: no
 * snapshots), always after a delete (`freed`), else once the log is over the threshold.
 */
export function isSnapshotDue(
  boundBytes: number | null, sizes: StorageSizes, freed: boolean,
): boolean {
  if (boundBytes === null) return false;
  return freed || sizes.logBytes > compactionThresholdBytes(boundBytes, sizes.snapshotBytes);
}
