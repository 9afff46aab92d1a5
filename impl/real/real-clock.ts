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

/**
 * A pending timer. A timeout is armed for `firesAt`; a later `deadline` (the timer set again
 * further out) re-arms it for the remainder when it fires, instead of clearing and creating a
 * Node timer on every reset: a follower resets its election timer with every AppendEntries,
 * and clearTimeout + setTimeout of a fresh random duration (a new timer list each) were 5% of
 * its CPU (perf, one client's puts).
 */
interface Pending {
  callback: () => void;
  deadline: number;
  firesAt: number;
  timeout: NodeJS.Timeout | null;
  immediate: NodeJS.Immediate | null;
}

function clear(pending: Pending): void {
  if (pending.timeout !== null) clearTimeout(pending.timeout);
  if (pending.immediate !== null) clearImmediate(pending.immediate);
}

/**
 * A 0 ms timer (Raft's "send soon" after a proposal or a read) runs as an immediate, after
 * the I/O already waiting: Node clamps setTimeout(0) to 1 ms, which every put and read
 * paid at the leader (bench:cluster, one client). A timer never fires before its deadline.
 */
export class RealTimers implements Timers {
  private readonly pending = new Map<string, Pending>();

  setTimer(name: string, delayMs: number, callback: () => void): void {
    const armed = this.pending.get(name);
    if (delayMs > 0 && armed !== undefined && armed.timeout !== null) {
      const deadline = performance.now() + delayMs;
      // Armed to fire no later than the new deadline: it re-arms itself for the rest.
      if (armed.firesAt <= deadline) {
        armed.callback = callback;
        armed.deadline = deadline;
        return;
      }
    }
    this.cancelTimer(name);
    const pending: Pending = {
      callback, deadline: 0, firesAt: 0, timeout: null, immediate: null,
    };
    if (delayMs <= 0) {
      pending.immediate = setImmediate(() => this.fire(name, pending));
    } else {
      pending.deadline = performance.now() + delayMs;
      this.arm(name, pending, delayMs);
    }
    this.pending.set(name, pending);
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

  private arm(name: string, pending: Pending, delayMs: number): void {
    pending.firesAt = pending.deadline;
    pending.timeout = setTimeout(() => this.expire(name, pending), delayMs);
  }

  /** The armed timeout ran out: the timer fires, or waits for the deadline it was moved to. */
  private expire(name: string, pending: Pending): void {
    // Unmoved, it fires as Node timed it (Node's millisecond clock may run it a fraction early).
    const remainingMs = pending.deadline - performance.now();
    if (pending.deadline > pending.firesAt && remainingMs > 0) {
      return this.arm(name, pending, Math.ceil(remainingMs));
    }
    this.fire(name, pending);
  }

  private fire(name: string, pending: Pending): void {
    if (this.pending.get(name) === pending) this.pending.delete(name);
    pending.callback();
  }
}
