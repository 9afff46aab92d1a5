/**
 * What the shardkv rows of `bench:cluster` report beside throughput (issue 27): how many
 * elections the replica groups held during a row (the growth of each group's highest term),
 * and the log bytes the group servers keep per live byte (the keys and values the clients
 * wrote last, once per replica), read from `cluster status` after the row; after the shard
 * moves, the bytes on disk (log and snapshot) per live byte.
 */
import { clusterStatus, type OpenCluster } from '../../impl/process/cluster-nodes.js';
import type { NodeReport } from '../../impl/process/cluster-status.js';
import { key2shard } from '../../spec/group/digest.js';
import { replicaDisks, worstReplica, type ReplicaDisk } from './replica-disk.js';

export interface GroupFacts {
  /** gid -> the highest term any of its servers reported. */
  readonly terms: ReadonlyMap<number, number>;
  /** logBytes summed over the group servers that answered. */
  readonly logBytes: number;
  /** snapshotBytes summed over the same servers: with logBytes, what they keep on disk. */
  readonly snapshotBytes: number;
  /** Every group server's report, for the per-replica figures. */
  readonly reports: readonly NodeReport[];
  readonly groupServers: ReadonlySet<string>;
}

export async function groupFacts(cluster: OpenCluster): Promise<GroupFacts> {
  const status = await clusterStatus(cluster);
  const terms = new Map<number, number>();
  let logBytes = 0;
  let snapshotBytes = 0;
  for (const [gid, servers] of Object.entries(cluster.file.groups)) {
    for (const node of status.filter((report) => servers.includes(report.name))) {
      terms.set(Number(gid), Math.max(terms.get(Number(gid)) ?? 0, node.term ?? 0));
      logBytes += node.logBytes ?? 0;
      snapshotBytes += node.snapshotBytes ?? 0;
    }
  }
  const groupServers = new Set(Object.values(cluster.file.groups).flat());
  return { terms, logBytes, snapshotBytes, reports: status, groupServers };
}

/**
 * The group facts once the cluster is quiet: read every `pollMs` until two readings in a row
 * find every group server reporting the same log and snapshot bytes (the source's delete, the
 * snapshot it makes due and the destination's compaction have all landed), or `timeoutMs`
 * passed (then the last reading, and `settled` false).
 */
export async function settledGroupFacts(
  cluster: OpenCluster, timeoutMs = 30_000, pollMs = 1_000,
): Promise<{ readonly facts: GroupFacts; readonly settled: boolean }> {
  const deadline = Date.now() + timeoutMs;
  let facts = await groupFacts(cluster);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    const next = await groupFacts(cluster);
    const sizes = (reading: GroupFacts) => JSON.stringify(reading.reports
      .filter((report) => reading.groupServers.has(report.name))
      .map((report) => [report.name, report.logBytes, report.snapshotBytes, report.shards]));
    const settled = sizes(next) === sizes(facts) &&
      next.reports.every((report) => report.logBytes !== null);
    facts = next;
    if (settled || Date.now() >= deadline) return { facts, settled };
  }
}

/** What the group servers keep on disk against the live bytes, after the shard moves. */
export interface DiskFigures {
  readonly groups: number;
  readonly diskBytes: number;
  readonly liveBytes: number;
  readonly diskBytesPerLiveByte: number;
  /** CONTRACT's bound once moved-out shards are deleted: 3 x 1.5 x live bytes + 30 KiB. */
  readonly contractBoundBytes: number;
  /** Issue 21's bound, per replica (replica-disk.ts): the one furthest over it. */
  readonly worstReplica: ReplicaDisk | null;
  readonly replicas: readonly ReplicaDisk[];
}

export function diskFigures(groups: number, facts: GroupFacts, live: LiveBytes): DiskFigures {
  const diskBytes = facts.logBytes + facts.snapshotBytes;
  const replicas = replicaDisks(facts.reports, facts.groupServers, (shard) => live.ofShard(shard));
  return {
    groups, diskBytes, liveBytes: live.bytes,
    diskBytesPerLiveByte: diskBytes / Math.max(1, live.bytes),
    contractBoundBytes: 3 * 1.5 * live.bytes + 30 * 1024,
    worstReplica: worstReplica(replicas), replicas,
  };
}

/** Elections between two readings: the terms the groups went through. */
export function electionsBetween(before: GroupFacts, after: GroupFacts): number {
  let elections = 0;
  for (const [gid, term] of after.terms) elections += term - (before.terms.get(gid) ?? term);
  return elections;
}

/** The live bytes the clients left: each key's UTF-8 length plus its value's. */
export class LiveBytes {
  /** key -> its value's bytes. */
  private readonly values = new Map<string, number>();
  /** shard -> the live bytes of its keys. */
  private readonly shards = new Map<number, number>();
  private total = 0;

  constructor(private readonly shardCount = 10) {}

  put(key: string, valueBytes: number): void {
    const before = this.values.get(key);
    const change = valueBytes - (before ?? -Buffer.byteLength(key));
    const shard = key2shard(key, this.shardCount);
    this.total += change;
    this.shards.set(shard, (this.shards.get(shard) ?? 0) + change);
    this.values.set(key, valueBytes);
  }

  ofShard(shard: number): number {
    return this.shards.get(shard) ?? 0;
  }

  append(key: string, bytes: number): void {
    this.put(key, (this.values.get(key) ?? 0) + bytes);
  }

  get bytes(): number {
    return this.total;
  }
}
