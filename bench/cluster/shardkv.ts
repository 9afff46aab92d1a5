/**
 * The shardkv side of `bench:cluster`: a cluster started in a temporary DIR through the same
 * functions as `shardkv cluster start` (fsync on, node processes from dist/), its groups
 * joined, and one clerk (impl/clerk over TCP, a session of its own) per benchmark client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allNodes, firstGid } from '../../impl/process/cluster-file.js';
import { runningPid } from '../../impl/process/pids.js';
import { openCluster, stopCluster, type OpenCluster } from '../../impl/process/cluster-nodes.js';
import { startCluster } from '../../impl/process/cluster-start.js';
import { openClerk, type ClerkSession } from '../../impl/process/clerk-session.js';
import type { Outcome } from '../../impl/node/api.js';
import { UnknownOutcome } from './closed-loop.js';

/** An operation waits this long before it counts as failed. */
export const operationTimeoutSeconds = 10;

export interface ShardkvCluster {
  readonly cluster: OpenCluster;
  readonly gids: readonly number[];
  /** A clerk that may join / leave / move. */
  readonly admin: ClerkSession;
  /** `count` clerks, each registered; closed by stop(). */
  clerks(count: number): Promise<ClerkSession[]>;
  /** The node processes' pids (controllers and groups). */
  pids(): number[];
  stop(): Promise<void>;
}

export interface ShardkvStartOptions {
  readonly groups: number;
  readonly trace: boolean;
  readonly maxValueBytes: number;
  readonly maxRaftStateBytes: number | null;
}

/**
 * The value of an ok outcome; throws on any other (the benchmark counts an UnknownOutcome as
 * unknown, anything else as a failure).
 */
export function expectOk<T>(outcome: Outcome<T>, what: string): T {
  if (outcome.status === 'unknown') throw new UnknownOutcome(`${what}: unknown: ${outcome.error}`);
  if (outcome.status !== 'ok') throw new Error(`${what}: ${outcome.status}: ${outcome.error}`);
  return outcome.value;
}

export async function startShardkv(options: ShardkvStartOptions): Promise<ShardkvCluster> {
  const directory = mkdtempSync(join(tmpdir(), 'shardkv-bench-'));
  const sessions: ClerkSession[] = [];
  let cluster: OpenCluster | null = null;
  const stop = async () => {
    await Promise.all(sessions.map((session) => session.close()));
    if (cluster !== null) await stopCluster(cluster);
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await startCluster({
      directory,
      shape: { groups: options.groups, servers: 3, controllers: 3, shards: 10 },
      settings: {
        maxRaftStateBytes: options.maxRaftStateBytes, maxKeyBytes: 1024,
        maxValueBytes: options.maxValueBytes,
        trace: options.trace,
      },
      readyTimeoutMs: 60_000,
    });
    cluster = openCluster(directory);
    const opened = cluster;
    const gids = Object.keys(opened.file.groups).map(Number).sort((a, b) => a - b);
    const admin = await openClerk(opened, 'admin');
    sessions.push(admin);
    const joined = expectOk(await admin.clerk.join(
      Object.fromEntries(gids.map((gid) => [gid, opened.file.groups[gid]!])),
      admin.deadline(60)), 'join');
    expectOk(await admin.clerk.waitPublished(joined.num, admin.deadline(60)), 'publish');
    return {
      cluster: opened,
      gids,
      admin,
      clerks: async (count) => {
        const opening = await Promise.all(
          Array.from({ length: count }, () => openClerk(opened, 'client')));
        sessions.push(...opening);
        await Promise.all(opening.map(async (session) =>
          expectOk(await session.clerk.register(session.deadline(60)), 'register')));
        return opening;
      },
      pids: () => allNodes(opened.file).map((name) => runningPid(opened.paths, name) ?? 0),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The gid of group number `index` (0-based) as `cluster start` creates them. */
export const gidOf = (index: number) => firstGid + index;
