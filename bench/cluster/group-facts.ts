/**
 * What the shardkv rows of `bench:cluster` report beside throughput (issue 27): how many
 * elections the replica groups held during a row (the growth of each group's highest term),
 * and the log bytes the group servers keep per live byte (the keys and values the clients
 * wrote last, once per replica), read from `cluster status` after the row; after the shard
 * moves, the bytes on disk (log and snapshot) per live byte.
 */
import { clusterStatus, type OpenCluster } from '../../impl/process/cluster-nodes.js';

export interface GroupFacts {
  /** gid -> the highest term any of its servers reported. */
  readonly terms: ReadonlyMap<number, number>;
  /** logBytes summed over the group servers that answered. */
  readonly logBytes: number;
  /** snapshotBytes summed over the same servers: with logBytes, what they keep on disk. */
  readonly snapshotBytes: number;
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
  return { terms, logBytes, snapshotBytes };
}

/** What the group servers keep on disk against the live bytes, after the shard moves. */
export interface DiskFigures {
  readonly groups: number;
  readonly diskBytes: number;
  readonly liveBytes: number;
  readonly diskBytesPerLiveByte: number;
  /** CONTRACT's bound once moved-out shards are deleted: 3 x 1.5 x live bytes + 30 KiB. */
  readonly contractBoundBytes: number;
}

export function diskFigures(groups: number, facts: GroupFacts, liveBytes: number): DiskFigures {
  const diskBytes = facts.logBytes + facts.snapshotBytes;
  return {
    groups, diskBytes, liveBytes, diskBytesPerLiveByte: diskBytes / Math.max(1, liveBytes),
    contractBoundBytes: 3 * 1.5 * liveBytes + 30 * 1024,
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
  private total = 0;

  put(key: string, valueBytes: number): void {
    const before = this.values.get(key);
    this.total += valueBytes - (before ?? -Buffer.byteLength(key));
    this.values.set(key, valueBytes);
  }

  append(key: string, bytes: number): void {
    this.put(key, (this.values.get(key) ?? 0) + bytes);
  }

  get bytes(): number {
    return this.total;
  }
}
