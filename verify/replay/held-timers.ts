/**
 * The timers of one node in a runtime replay: a timer the shell sets stays pending until the
 * trace fires it by name (a Timeout action fires the election timer), never by itself. So the
 * runtime takes no step the trace did not schedule.
 */
import type { Timers } from '../../impl/io/clock.js';

export class HeldTimers implements Timers {
  private readonly pending = new Map<string, () => void>();

  setTimer(name: string, _delayMs: number, callback: () => void): void {
    this.pending.set(name, callback);
  }

  cancelTimer(name: string): void {
    this.pending.delete(name);
  }

  cancelAllTimers(): void {
    this.pending.clear();
  }

  isPending(name: string): boolean {
    return this.pending.has(name);
  }

  /** Runs the pending timer `name` once; false when none of that name is pending. */
  fire(name: string): boolean {
    const callback = this.pending.get(name);
    if (callback === undefined) return false;
    this.pending.delete(name);
    callback();
    return true;
  }
}
