/**
 * `bench:cluster --load N`: N busy processes (each a node process spinning on the CPU) that
 * run beside both systems' rows, so that the comparison includes a loaded machine (the one
 * users share with their tests). Real processes, stopped by their pid when the rows end.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface BusyLoad {
  readonly processes: number;
  stop(): Promise<void>;
}

const spinner = 'for (;;) {}';

export function startBusyLoad(processes: number): BusyLoad {
  if (!Number.isInteger(processes) || processes < 0) {
    throw new Error(`busy load of ${processes} processes`);
  }
  const children: ChildProcess[] = Array.from({ length: processes },
    () => spawn(process.execPath, ['-e', spinner], { stdio: 'ignore' }));
  // A bench that dies must not leave spinners behind.
  const killAll = () => { for (const child of children) child.kill('SIGKILL'); };
  process.once('exit', killAll);
  return {
    processes,
    stop: async () => {
      process.removeListener('exit', killAll);
      await Promise.all(children.map((child) => new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      })));
    },
  };
}
