/**
 * DIR/cluster.lock: commands that start or stop processes (start, stop, kill, restart) hold it,
 * so concurrent calls on one DIR never race on a pid file. Created with O_EXCL ('wx') and
 * holding the owner's pid; a lock whose owner is dead is stale and broken. Breaking goes
 * through a second exclusive file, so that two commands that both find the lock stale cannot
 * both take it (the second would otherwise remove the first one's fresh lock).
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterFailure } from './errors.js';
import type { ClusterPaths } from './paths.js';
import { processExists } from './pids.js';

const pollMs = 20;
/** A breaker file older than this was left by a command that died while breaking. */
const breakerStaleMs = 10_000;

export async function withClusterLock<T>(
  paths: ClusterPaths,
  timeoutMs: number,
  action: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (!tryCreate(paths.lockFile)) {
    const owner = readOwner(paths.lockFile);
    if (owner !== null && !processExists(owner)) breakStaleLock(paths.lockFile, owner);
    else if (Date.now() > deadline) {
      throw new ClusterFailure(`${paths.root} is locked by process ${owner} (${paths.lockFile})`);
    } else await sleep(pollMs);
  }
  try {
    return await action();
  } finally {
    rmSync(paths.lockFile, { force: true });
  }
}

function tryCreate(path: string): boolean {
  try {
    writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readOwner(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function breakStaleLock(path: string, stalePid: number): void {
  const breaker = `${path}.break`;
  if (!tryCreate(breaker)) {
    try {
      const ageMs = Date.now() - statSync(breaker).mtimeMs;
      if (ageMs > breakerStaleMs) rmSync(breaker, { force: true });
    } catch {
      // another command removed it first
    }
    return;
  }
  try {
    if (readOwner(path) === stalePid) rmSync(path, { force: true });
  } finally {
    rmSync(breaker, { force: true });
  }
}
