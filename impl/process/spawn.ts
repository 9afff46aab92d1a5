/**
 * Starting and ending node processes. A node runs `node-main` in a detached process of its own
 * (it outlives the command that started it), with its output appended to its log file. From
 * the built package (bin/shardkv.js runs dist/) the entry is node-main.js, so `npx shardkv`
 * needs no loader; from the sources (tests, `node --import tsx`) it is dist/'s node-main.js
 * too while dist/ is current (built-copy.ts), else node-main.ts under tsx's loader.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { builtCopy } from './built-copy.js';
import type { ClusterPaths } from './paths.js';
import { isNodeProcess, nodeArguments, removePid, writePid } from './pids.js';

const exitPollMs = 20;

/**
 * V8's garbage collector for a node process: on the node's own thread, with a young generation
 * of at most 1 MiB per semi-space. A put waits behind a scavenge as long as it pauses, and the
 * pause grows with the young generation (V8 grows it to a few MiB here: 2-3 ms a pause on a
 * loaded box); a small one pauses often and briefly, which a put's p99 prefers. On two busy
 * cores the parallel scavenge's helper threads wait for a core while the node waits for them.
 * Measured with --trace-gc (docs/benchmarks.md, "Garbage collection on the put path"). The
 * systemd unit and the Dockerfile in deploy/ start node with the same flags.
 */
export const garbageCollectorFlags = ['--single-threaded-gc', '--max-semi-space-size=1'];

function entryArguments(): string[] {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./node-main.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  if (!fromSource) return [entry];
  const copy = builtCopy(entry);
  // An absolute loader URL: the node runs in DIR, where a bare `tsx` would not resolve.
  return copy === null ? ['--import', import.meta.resolve('tsx'), entry] : [copy];
}

/** Spawns the node's process and records its pid; returns the pid. */
export function spawnNode(paths: ClusterPaths, name: string): number {
  mkdirSync(paths.dataDirectory(name), { recursive: true });
  const log = openSync(paths.logFile(name), 'a');
  try {
    const child = spawn(process.execPath, [
      ...garbageCollectorFlags, ...profileArguments(), ...entryArguments(), ...nodeArguments(paths, name),
    ], {
      cwd: paths.root,
      detached: true,
      stdio: ['ignore', log, log],
      env: nodeEnvironment(),
    });
    if (child.pid === undefined) throw new Error(`could not spawn the process of ${name}`);
    child.unref();
    writePid(paths, name, child.pid);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

/**
 * `node --cpu-prof` for every node process when SHARDKV_CPU_PROF_DIR names a directory
 * (`bench:cluster --cpu-prof DIR`): each node writes its profile there when it exits cleanly.
 */
function profileArguments(): string[] {
  const directory = process.env['SHARDKV_CPU_PROF_DIR'];
  return directory === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', directory];
}

/** The caller's environment without what would make a node do a test runner's work. */
function nodeEnvironment(): NodeJS.ProcessEnv {
  const environment = { ...process.env };
  // c8 measures spec/ and checker/ through the test process; nodes writing coverage at exit
  // would only slow them down.
  delete environment['NODE_V8_COVERAGE'];
  delete environment['NODE_OPTIONS'];
  return environment;
}

/** Polls until the node's process has exited; false if it still runs at the deadline. */
export async function waitForExit(
  paths: ClusterPaths, name: string, pid: number, timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isNodeProcess(paths, name, pid)) {
    if (Date.now() > deadline) return false;
    await sleep(exitPollMs);
  }
  return true;
}

/** SIGKILL, then wait for the process to be gone and drop its pid file. */
export async function killNodeProcess(paths: ClusterPaths, name: string, pid: number) {
  signal(pid, 'SIGKILL');
  await waitForExit(paths, name, pid, 10_000);
  removePid(paths, name);
}

/** SIGTERM (a clean shutdown), then SIGKILL after `graceMs`; drops the pid file. */
export async function stopNodeProcess(
  paths: ClusterPaths, name: string, pid: number, graceMs: number,
): Promise<void> {
  signal(pid, 'SIGTERM');
  if (!(await waitForExit(paths, name, pid, graceMs))) await killNodeProcess(paths, name, pid);
  removePid(paths, name);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
