/**
 * The node shell's timing and batching defaults, in one place (ServerTuning in api.ts). The
 * election timeout range is the MIT lab's order of magnitude, several heartbeats wide so that
 * one lost heartbeat does not start an election.
 */
import { assert } from '../../spec/assert.js';
import type { ServerTuning } from './api.js';
import { defaultPartLimits } from '../../spec/group/image-cut.js';

/** Every field set: what the shell runs with. */
export type ResolvedTuning = Required<ServerTuning>;

export const defaultTuning: ResolvedTuning = {
  electionTimeoutMs: [300, 600],
  heartbeatIntervalMs: 50,
  maxRaftStateBytes: null,
  maxEntriesPerAppend: 64,
  // etcd's MaxSizePerMsg order: a 10 MiB shard image still goes, alone (issue 21 item 3).
  maxBytesPerAppend: 2 ** 20,
  maxInflightAppends: 64,
  maxInflightBytes: 8 * 2 ** 20,
  preVote: true,
  checkQuorum: true,
  driverRetryMs: 100,
  // One append's byte budget: each part of a large image is one entry that fits an append.
  imagePartBytes: defaultPartLimits.partBytesMax,
  imagePartsInFlight: defaultPartLimits.partsInFlightMax,
  readIndexReads: true,
  batchDuringAppendSync: true,
  readRoundToQuorum: false,
  maxKeyBytes: 1024,
  maxValueBytes: 2 ** 20,
};

/** The defaults overridden by `tuning`, checked once so that the loop can trust them. */
export function resolveTuning(tuning: Partial<ServerTuning> = {}): ResolvedTuning {
  const resolved = { ...defaultTuning, ...tuning };
  const [low, high] = resolved.electionTimeoutMs;
  assert(low > 0 && high >= low, `bad election timeout range [${low}, ${high}]`);
  assert(resolved.heartbeatIntervalMs > 0, 'the heartbeat interval must be positive');
  assert(resolved.heartbeatIntervalMs < low, 'heartbeats must come before elections time out');
  assert(resolved.maxEntriesPerAppend >= 1, 'an append carries at least one entry');
  const { maxBytesPerAppend, maxInflightAppends, maxInflightBytes } = resolved;
  assert(maxBytesPerAppend === null || maxBytesPerAppend > 0, 'bad maxBytesPerAppend');
  assert(Number.isInteger(maxInflightAppends) && maxInflightAppends >= 0, 'bad inflight window');
  assert(maxInflightBytes === null || maxInflightBytes > 0, 'bad maxInflightBytes');
  assert(resolved.driverRetryMs > 0, 'the driver retry interval must be positive');
  assert(resolved.imagePartBytes > 0, 'the image part budget must be positive');
  assert(Number.isSafeInteger(resolved.imagePartsInFlight) && resolved.imagePartsInFlight >= 1,
    'the driver has at least one image part out');
  assert(resolved.maxKeyBytes > 0 && resolved.maxValueBytes > 0, 'request limits are positive');
  const bound = resolved.maxRaftStateBytes;
  assert(bound === null || bound > 0, `bad maxRaftStateBytes ${String(bound)}`);
  return resolved;
}

/** The spec's node options the tuning sets (an unset bound is left out: no bound). */
export function raftOptionsOf(tuning: ResolvedTuning) {
  return {
    maxEntriesPerAppend: tuning.maxEntriesPerAppend,
    ...(tuning.maxBytesPerAppend === null ? {} : { maxBytesPerAppend: tuning.maxBytesPerAppend }),
    ...(tuning.maxInflightAppends === 0 ? {} : { maxInflightAppends: tuning.maxInflightAppends }),
    ...(tuning.maxInflightBytes === null ? {} : { maxInflightBytes: tuning.maxInflightBytes }),
    preVote: tuning.preVote,
    checkQuorum: tuning.checkQuorum,
    // Absent when off, so that traces of the runs before it read the same.
    ...(tuning.readRoundToQuorum ? { readRoundToQuorum: true } : {}),
  };
}
