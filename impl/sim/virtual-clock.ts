/**
 * Simulated time (FoundationDB's simulation, TigerBeetle's VOPR): nothing happens between
 * events, so a simulated minute costs only the work of its events. `now()` is the time of the
 * event being run. Every timer, message delivery and disk latency of a simulated cluster is an
 * event here, and ties run in scheduling order, so one seed replays one history.
 *
 * Code that awaits promises (a storage sync) continues in microtasks, which run only when the
 * driver yields: `step()` and `runUntil()` run event callbacks back to back, while
 * `runUntilSettled()` lets every promise continuation finish after each event.
 */
import { assert } from '../../spec/assert.js';
import type { Clock, Timers } from '../io/clock.js';
import { EventQueue } from './event-queue.js';

/** A bound on the events of one run call: more means a loop that schedules without end. */
export const eventsPerRunMax = 50_000_000;

export class VirtualClock implements Clock {
  private readonly queue = new EventQueue();
  private time: number;

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  /** Runs `run` after `delayMs` of simulated time; returns an id for cancel(). */
  schedule(delayMs: number, run: () => void): number {
    assert(delayMs >= 0, `negative delay ${delayMs}`);
    return this.queue.push(this.time + delayMs, run);
  }

  cancel(eventId: number): void {
    this.queue.cancel(eventId);
  }

  /** Resolves after `delayMs` of simulated time. */
  sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => this.schedule(delayMs, resolve));
  }

  get pendingEvents(): number {
    return this.queue.size;
  }

  /** The time of the next event, or undefined when none is pending. */
  nextEventTime(): number | undefined {
    return this.queue.peek()?.time;
  }

  /** Runs the earliest event; false if there was none. */
  step(): boolean {
    const event = this.queue.pop();
    if (event === undefined) return false;
    this.time = event.time;
    event.run();
    return true;
  }

  /** Runs the earliest event, then lets promise continuations finish; false if none. */
  async stepSettled(): Promise<boolean> {
    const ran = this.step();
    if (ran) await settleMicrotasks();
    return ran;
  }

  /** Runs every event due at or before `timeMs`, then sets the time to it. Returns the count. */
  runUntil(timeMs: number): number {
    assert(timeMs >= this.time, `time runs forward: ${timeMs} < ${this.time}`);
    let events = 0;
    while ((this.queue.peek()?.time ?? Infinity) <= timeMs) {
      assert(events++ < eventsPerRunMax, `more than ${eventsPerRunMax} events before ${timeMs}`);
      this.step();
    }
    this.time = timeMs;
    return events;
  }

  /** As runUntil, letting promise continuations (microtasks) finish after every event. */
  async runUntilSettled(timeMs: number): Promise<number> {
    assert(timeMs >= this.time, `time runs forward: ${timeMs} < ${this.time}`);
    let events = 0;
    await settleMicrotasks();
    while ((this.queue.peek()?.time ?? Infinity) <= timeMs) {
      assert(events++ < eventsPerRunMax, `more than ${eventsPerRunMax} events before ${timeMs}`);
      this.step();
      await settleMicrotasks();
    }
    this.time = timeMs;
    return events;
  }

  /** Named timers whose callbacks run as events of this clock. */
  timers(): Timers {
    return new VirtualTimers(this);
  }
}

/**
 * Resolves once every microtask queued so far (and every one those queue) has run: a
 * setImmediate callback runs only after the microtask queue is empty. The simulation does no
 * real I/O, so nothing else can run in between.
 */
function settleMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

class VirtualTimers implements Timers {
  private readonly pending = new Map<string, number>();

  constructor(private readonly clock: VirtualClock) {}

  setTimer(name: string, delayMs: number, callback: () => void): void {
    this.cancelTimer(name);
    const id = this.clock.schedule(delayMs, () => {
      this.pending.delete(name);
      callback();
    });
    this.pending.set(name, id);
  }

  cancelTimer(name: string): void {
    const id = this.pending.get(name);
    if (id === undefined) return;
    this.clock.cancel(id);
    this.pending.delete(name);
  }

  cancelAllTimers(): void {
    for (const id of this.pending.values()) this.clock.cancel(id);
    this.pending.clear();
  }
}
