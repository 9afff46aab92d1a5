/**
 * Ctrl-C during a check: the first SIGINT asks the search to stop (a shared flag its thread
 * reads, every worker thread of a parallel bfs included) so that the summary so far, the
 * counts of all threads, is printed; a second one quits at once.
 */
import type { Io } from './io.js';

/** The shell's convention for a command ended by SIGINT (128 + 2). */
export const exitInterrupted = 130;

export interface Interrupt {
  readonly stopFlag: Int32Array;
  readonly interrupted: boolean;
  dispose(): void;
}

/** Listens for SIGINT until `dispose`. */
export function catchInterrupt(io: Io): Interrupt {
  const stopFlag = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(exitInterrupted);
    interrupted = true;
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
    dispose: () => {
      process.off('SIGINT', onSignal);
    },
  };
}
