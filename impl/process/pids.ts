/**
 * Pid files and the question "is this node's process running?". A pid file can outlive its
 * process (SIGKILL, a reboot) and the pid can be reused, so on Linux a pid counts only while
 * /proc says that process is a node process of this node and DIR and not a zombie.
 */
import { readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ClusterPaths } from './paths.js';

/** Whether any process (zombies included) has this pid. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readPid(paths: ClusterPaths, name: string): number | null {
  try {
    const pid = Number(readFileSync(paths.pidFile(name), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function writePid(paths: ClusterPaths, name: string, pid: number): void {
  writeFileSync(paths.pidFile(name), `${pid}\n`);
}

export function removePid(paths: ClusterPaths, name: string): void {
  rmSync(paths.pidFile(name), { force: true });
}

/** The arguments node-main.ts is started with; also what identifies its process. */
export function nodeArguments(paths: ClusterPaths, name: string): string[] {
  return ['--dir', paths.root, '--node', name];
}

/**
 * What /proc says `pid` is: `node`, this node's running process; `changing`, a process with no
 * command line, which a process has for a moment between exec and its arguments and again while
 * it exits, its files and sockets still open; `other`, gone, a zombie, a kernel thread or
 * another program.
 */
export type ProcessState = 'node' | 'changing' | 'other';

function nodeProcessState(paths: ClusterPaths, name: string, pid: number): ProcessState {
  let stat: string;
  let commandLine: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch (error) {
    // Without /proc (not Linux) the pid file is trusted; on Linux the process is gone.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !hasProc()) {
      return processExists(pid) ? 'node' : 'other';
    }
    return 'other';
  }
  return classifyProcess(stat, commandLine, (argv) => namesNode(argv, pid, paths, name));
}

const kernelThreadFlag = 0x00200000; // PF_KTHREAD in /proc/PID/stat's flags

/** nodeProcessState's reading of one /proc/PID/stat and cmdline (pure, for the tests). */
export function classifyProcess(
  stat: string, commandLine: string, isThisNode: (argv: readonly string[]) => boolean,
): ProcessState {
  // The fields follow the command name, which is in parentheses and may hold spaces:
  // state, ppid, pgrp, session, tty_nr, tpgid, flags.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X') return 'other';
  if (commandLine === '') {
    return (Number(fields[6]) & kernelThreadFlag) === 0 ? 'changing' : 'other';
  }
  return isThisNode(commandLine.split('\0')) ? 'node' : 'other';
}

/**
 * Whether `pid` runs as the node process of `name` in this DIR, or may: a `changing` process
 * counts, so a restart neither calls a node still in exec dead nor starts its successor while
 * it still holds its port and files.
 */
export function isNodeProcess(paths: ClusterPaths, name: string, pid: number): boolean {
  return nodeProcessState(paths, name, pid) !== 'other';
}

/**
 * Whether a command line is `... --dir DIR --node NAME ...` for this node: node-main's, or
 * `shardkv node`'s, whose DIR may be relative to the process's working directory.
 */
function namesNode(argv: readonly string[], pid: number, paths: ClusterPaths, name: string) {
  const directory = flagValue(argv, 'dir');
  if (directory === undefined || flagValue(argv, 'node') !== name) return false;
  if (isAbsolute(directory)) return resolve(directory) === paths.root;
  try {
    return resolve(readlinkSync(`/proc/${pid}/cwd`), directory) === paths.root;
  } catch {
    return false;
  }
}

function flagValue(argv: readonly string[], flag: string): string | undefined {
  const at = argv.indexOf(`--${flag}`);
  if (at !== -1) return argv[at + 1];
  return argv.find((arg) => arg.startsWith(`--${flag}=`))?.slice(flag.length + 3);
}

let procMounted: boolean | null = null;

function hasProc(): boolean {
  if (procMounted === null) {
    try {
      readFileSync('/proc/self/stat');
      procMounted = true;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

/** The node's pid if its process is running, else null. */
export function runningPid(paths: ClusterPaths, name: string): number | null {
  const pid = readPid(paths, name);
  return pid !== null && isNodeProcess(paths, name, pid) ? pid : null;
}
