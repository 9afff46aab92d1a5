/** Where a command writes: stdout for results, stderr for progress and errors. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (progress lines are then rewritten in place). */
  readonly interactive?: boolean;
}

export const processIo: Io = {
  stdout: (text) => process.stdout.write(text + '\n'),
  stderr: (text) => process.stderr.write(text + '\n'),
  interactive: process.stderr.isTTY === true,
};

/** Exit codes of CONTRACT: 0 success, 1 a problem found, 2 usage or invalid input. */
export const exitOk = 0;
export const exitProblem = 1;
export const exitUsage = 2;
