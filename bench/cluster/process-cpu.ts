/**
 * CPU time used by a set of processes (Linux /proc/PID/stat: utime + stime), so that a row
 * also says how much server CPU one operation costs: on a shared machine that figure moves
 * far less with the neighbours' load than ops/s does. And how often their threads went to
 * sleep (voluntary context switches, /proc/PID/task/TID/status): each is a wait for a socket,
 * a disk or a thread pool, and each wake-up waits for a core on a loaded machine; counted, it
 * moves with the code, not with the load.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** Milliseconds of CPU the processes have used so far; a vanished process counts 0. */
export function cpuMilliseconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / ticksPerSecond;
}

/** Voluntary context switches of every thread of the processes so far (vanished: 0). */
export function voluntarySwitches(pids: readonly number[]): number {
  let switches = 0;
  for (const pid of pids) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      let status = '';
      try {
        status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      } catch {
        continue; // the thread ended meanwhile
      }
      switches += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
  }
  return switches;
}
