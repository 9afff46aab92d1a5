/**
 * `cluster status`: each node's process (from its pid file, checked against /proc) and, for
 * a live one, what it reports over process control. CONTRACT's JSON: a dead node has
 * `alive: false` and null for what it cannot report; a live node that does not answer in time
 * has `alive: true` and nulls. A dead node's `reason` is its last fatal line since it started
 * (a node that refused a damaged disk says so there), null when it has none (killed).
 */
import type { ServerRole } from '../node/api.js';
import type { AdminClient } from './admin-client.js';
import { allNodes, type ClusterFile } from './cluster-file.js';
import { fatalReason } from './node-log.js';
import type { ClusterPaths } from './paths.js';
import { runningPid } from './pids.js';

export interface NodeReport {
  readonly name: string;
  readonly pid: number | null;
  readonly alive: boolean;
  readonly role: ServerRole | null;
  readonly term: number | null;
  readonly commitIndex: number | null;
  readonly logBytes: number | null;
  readonly snapshotBytes: number | null;
  readonly shards: readonly number[] | null;
  /** Why a dead node is down: its fatal line since it last started (null: none, or alive). */
  readonly reason: string | null;
}

export async function nodeReports(
  paths: ClusterPaths, file: ClusterFile, admin: AdminClient, timeoutMs: number,
): Promise<NodeReport[]> {
  return Promise.all(allNodes(file).map((name) => nodeReport(paths, name, admin, timeoutMs)));
}

export async function nodeReport(
  paths: ClusterPaths, name: string, admin: AdminClient, timeoutMs: number,
): Promise<NodeReport> {
  const pid = runningPid(paths, name);
  const reply = pid === null ? null : await admin.status(name, timeoutMs);
  const status = reply?.status ?? null;
  const alive = pid !== null && runningPid(paths, name) === pid;
  return {
    name, pid, alive,
    role: status?.role ?? null, term: status?.term ?? null,
    commitIndex: status?.commitIndex ?? null, logBytes: status?.logBytes ?? null,
    snapshotBytes: status?.snapshotBytes ?? null, shards: status?.shards ?? null,
    reason: alive ? null : fatalReason(paths, name),
  };
}

/** Whether every node answers with a started server and a controller leads. */
export function isReady(reports: readonly NodeReport[], file: ClusterFile): boolean {
  const started = reports.every((report) => report.role !== null);
  const leading = reports.some(
    (report) => file.controllers.includes(report.name) && report.role === 'leader',
  );
  return started && leading;
}
