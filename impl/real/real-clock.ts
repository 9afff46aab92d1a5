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

type Pending = { readonly timeout: NodeJS.Timeout } | { readonly immediate: NodeJS.Immediate };

function clear(pending: Pending): void {
  if ('timeout' in pending) clearTimeout(pending.timeout);
  else clearImmediate(pending.immediate);
}

/**
 * A 0 ms timer (Raft's "send soon" after a proposal or a read) runs as an immediate, after
 * the I/O already waiting: Node clamps setTimeout(0) to 1 ms, which every put and read
 * paid at the leader (bench:cluster, one client).
 */
export class RealTimers implements Timers {
  private readonly pending = new Map<string, Pending>();

  setTimer(name: string, delayMs: number, callback: () => void): void {
    this.cancelTimer(name);
    const fire = () => {
      this.pending.delete(name);
      callback();
    };
    this.pending.set(name, delayMs <= 0
      ? { immediate: setImmediate(fire) } : { timeout: setTimeout(fire, delayMs) });
  }

  cancelTimer(name: string): void {
    const pending = this.pending.get(name);
    if (pending === undefined) return;
    clear(pending);
    this.pending.delete(name);
  }

  cancelAllTimers(): void {
    for (const pending of this.pending.values()) clear(pending);
    this.pending.clear();
  }
}
