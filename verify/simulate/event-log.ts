/**
 * The run's event log: one line per event, `<time ms> <node> <what>`. Two runs of one seed
 * must write the same lines (that is the determinism a seed promises), so the log keeps a
 * digest of every line; the last lines are kept for a failure report (the last notable ones,
 * which leave out the stream of frame deliveries, apart), and every line only when asked
 * (diffing two runs, writing a trace). The digest is two FNV-1a chains over the lines with
 * different offsets (64 bits): it only has to tell runs apart, not resist anyone.
 */
import { assert } from '../../spec/assert.js';
import type { Timers } from '../../impl/io/clock.js';
import { fnv1a, fnv1aBytes } from '../../spec/fnv.js';

/** The tail a failure report shows. */
export const tailLinesMax = 40;

const secondOffset = 0x2c1b3c6d;

export class EventLog {
  private firstHash = fnv1a('');
  private secondHash = secondOffset;
  private readonly tail = new LineRing(tailLinesMax);
  private readonly notableTail = new LineRing(tailLinesMax);
  private readonly everyLine: string[] | null;
  count = 0;

  constructor(keepEveryLine: boolean) {
    this.everyLine = keepEveryLine ? [] : null;
  }

  /** `notable`: shown in a failure report even when frames were delivered after it. */
  add(timeMs: number, node: string, what: string, notable = true): void {
    assert(!what.includes('\n'), 'an event is one line');
    const line = `${timeMs} ${node} ${what}`;
    this.firstHash = fnv1a(line + '\n', this.firstHash);
    this.secondHash = fnv1a(line + '\n', this.secondHash);
    this.count++;
    this.everyLine?.push(line);
    this.tail.push(line);
    if (notable) this.notableTail.push(line);
  }

  /** 16 hexadecimal digits over every line so far. */
  digest(): string {
    const hex = (value: number) => value.toString(16).padStart(8, '0');
    return hex(this.firstHash) + hex(this.secondHash);
  }

  /** The last lines, oldest first. */
  lastLines(): string[] {
    return this.tail.lines();
  }

  /** The last notable lines, oldest first. */
  lastNotableLines(): string[] {
    return this.notableTail.lines();
  }

  /** Every line, or null when the log was not asked to keep them. */
  lines(): readonly string[] | null {
    return this.everyLine;
  }
}

/** `timers` that also tell `onFire` the name of every timer that fires, before its callback. */
export function loggedTimers(timers: Timers, onFire: (name: string) => void): Timers {
  return {
    setTimer: (name, delayMs, callback) => timers.setTimer(name, delayMs, () => {
      onFire(name);
      callback();
    }),
    cancelTimer: (name) => timers.cancelTimer(name),
    cancelAllTimers: () => timers.cancelAllTimers(),
  };
}

/** FNV-1a over bytes, as 8 hexadecimal digits: a frame's fingerprint in the log. */
export function bytesDigest(bytes: Uint8Array): string {
  return fnv1aBytes(bytes).toString(16).padStart(8, '0');
}

/** The last `capacity` lines pushed, in a ring. */
class LineRing {
  private readonly ring: string[] = [];
  /** Index of the oldest line once the ring is full. */
  private start = 0;

  constructor(private readonly capacity: number) {}

  push(line: string): void {
    if (this.ring.length < this.capacity) {
      this.ring.push(line);
      return;
    }
    this.ring[this.start] = line;
    this.start = (this.start + 1) % this.capacity;
  }

  lines(): string[] {
    return [...this.ring.slice(this.start), ...this.ring.slice(0, this.start)];
  }
}
