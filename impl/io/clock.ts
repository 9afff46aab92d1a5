/** Time, read and awaited. Milliseconds; real adapters use a monotonic clock. */
export interface Clock {
  now(): number;
}

/**
 * Named one-shot timers, as the spec's `setTimer(name)` effects need them: setting a timer that
 * is already pending replaces it (a reset election timeout), so each name has at most one.
 */
export interface Timers {
  setTimer(name: string, delayMs: number, callback: () => void): void;
  /** Does nothing if no timer of that name is pending. */
  cancelTimer(name: string): void;
  /** Cancels every pending timer (a crash, a shutdown). */
  cancelAllTimers(): void;
}
