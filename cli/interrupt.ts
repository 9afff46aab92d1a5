/**
 * Ctrl-C during a check: the first SIGINT asks the search to stop (a shared flag its thread
 * reads) so that the summary so far is printed; a second one quits at once. A search that
 * cannot read the flag (bfs on several workers) is reported from its last progress report.
 */
import type { Progress } from '../checker/search.js';
import type { Io } from './io.js';

/** The shell's convention for a command ended by SIGINT (128 + 2). */
export const exitInterrupted = 130;

export interface Interrupt {
  readonly stopFlag: Int32Array;
  readonly interrupted: boolean;
  noteProgress(progress: Progress): void;
  dispose(): void;
}

/**
 * Listens for SIGINT until `dispose`. `unstoppable`, when given, is called instead of setting
 * the flag, with the last progress seen; it must print and end the process.
 */
export function catchInterrupt(
  io: Io,
  unstoppable?: (last: Progress | undefined) => never,
): Interrupt {
  const stopFlag = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  let last: Progress | undefined;
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(exitInterrupted);
    interrupted = true;
    if (unstoppable) unstoppable(last);
    io.stderr('interrupted: stopping the search and printing the summary so far ' +
      '(Ctrl-C again quits at once)');
    Atomics.store(stopFlag, 0, 1);
  };
  process.on('SIGINT', onSignal);
  return {
    stopFlag,
    get interrupted() {
      return interrupted;
    },
    noteProgress: (progress) => {
      last = progress;
    },
    dispose: () => {
      process.off('SIGINT', onSignal);
    },
  };
}
