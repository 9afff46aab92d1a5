/**
 * The real clock and timers for a node process. `now()` is monotonic (performance.now, plus the
 * wall-clock time at start so that values read like epoch milliseconds): NTP adjustments never
 * make an election timeout fire early or late.
 */
import type { Clock, Timers } from '../io/clock.js';

export class RealClock implements Clock {
  private readonly origin = Date.now() - performance.now();

  now(): number {
    return this.origin + performance.now();
  }
}

export class RealTimers implements Timers {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  setTimer(name: string, delayMs: number, callback: () => void): void {
    this.cancelTimer(name);
    const timer = setTimeout(() => {
      this.pending.delete(name);
      callback();
    }, delayMs);
    this.pending.set(name, timer);
  }

  cancelTimer(name: string): void {
    const timer = this.pending.get(name);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.pending.delete(name);
  }

  cancelAllTimers(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
