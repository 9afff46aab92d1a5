/**
 * Issue 21's disk bound, per replica: once values have moved between groups and the cluster is
 * quiet, every group server keeps (log and snapshot) at most 1.5 x the live bytes of the
 * shards it serves plus a small constant. CONTRACT's bound sums over all group servers; this
 * one holds each replica to the data it serves, so that a moved-out shard a source still
 * keeps, or a log not compacted after a move, shows at the replica that keeps it.
 */
import type { NodeReport } from '../../impl/process/cluster-status.js';

/** The bound's constant: shard records, dedup records and framing that no live byte pays for. */
export const replicaOverheadBytes = 32 * 1024;
export const replicaBytesPerLiveByte = 1.5;

/** What one group server keeps against what it serves. */
export interface ReplicaDisk {
  readonly name: string;
  /** logBytes + snapshotBytes, from `cluster status`. */
  readonly diskBytes: number;
  /** The live key and value bytes of the shards the server reports serving. */
  readonly liveBytes: number;
  readonly shards: readonly number[];
  /** replicaBytesPerLiveByte x liveBytes + replicaOverheadBytes. */
  readonly boundBytes: number;
}

export const replicaBoundBytes = (liveBytes: number): number =>
  replicaBytesPerLiveByte * liveBytes + replicaOverheadBytes;

/**
 * Each group server that reported its sizes and shards; `liveOfShard` gives a shard's live
 * bytes. A server that could not report (null sizes) is left out: the caller asks again.
 */
export function replicaDisks(
  reports: readonly NodeReport[], groupServers: ReadonlySet<string>,
  liveOfShard: (shard: number) => number,
): ReplicaDisk[] {
  const disks: ReplicaDisk[] = [];
  for (const report of reports) {
    if (!groupServers.has(report.name)) continue;
    if (report.logBytes === null || report.snapshotBytes === null || report.shards === null) {
      continue;
    }
    const liveBytes = report.shards.reduce((sum, shard) => sum + liveOfShard(shard), 0);
    disks.push({
      name: report.name, diskBytes: report.logBytes + report.snapshotBytes, liveBytes,
      shards: report.shards, boundBytes: replicaBoundBytes(liveBytes),
    });
  }
  return disks;
}

/** The replica furthest over (or least under) its bound: the one the bound is about. */
export function worstReplica(disks: readonly ReplicaDisk[]): ReplicaDisk | null {
  let worst: ReplicaDisk | null = null;
  for (const disk of disks) {
    if (worst === null || disk.diskBytes - disk.boundBytes > worst.diskBytes - worst.boundBytes) {
      worst = disk;
    }
  }
  return worst;
}

/** One line for a replica: its bytes, the live bytes it serves, per live byte, the bound. */
export function describeReplica(disk: ReplicaDisk): string {
  const perLive = disk.liveBytes === 0 ? 'no live byte'
    : `${(disk.diskBytes / disk.liveBytes).toFixed(2)} per live byte`;
  const verdict = disk.diskBytes <= disk.boundBytes ? 'within' : 'over';
  return `${disk.name} keeps ${disk.diskBytes} bytes for the ${disk.liveBytes} live bytes of` +
    ` shards [${disk.shards.join(',')}]: ${perLive}, ${verdict} ${replicaBytesPerLiveByte} x` +
    ` live + ${replicaOverheadBytes} (${disk.boundBytes.toFixed(0)})`;
}
