/**
 * The run's event log: one line per event, `<time ms> <node> <what>`. Two runs of one seed
 * must write the same lines (that is the determinism a seed promises), so the log keeps a
 * digest of every line; the last lines are kept for a failure report, and every line only
 * when asked (diffing two runs, writing a trace). The digest is two FNV-1a chains over the
 * lines with different offsets (64 bits): it only has to tell runs apart, not resist anyone.
 */
import { assert } from '../../../spec/assert.js';
import { fnv1a } from '../../../spec/group/digest.js';

/** The tail a failure report shows. */
export const tailLinesMax = 40;

const secondOffset = 0x2c1b3c6d;

export class EventLog {
  private firstHash = fnv1a('');
  private secondHash = secondOffset;
  private readonly tail: string[] = [];
  /** Index in `tail` of the oldest line once the ring is full. */
  private tailStart = 0;
  private readonly everyLine: string[] | null;
  count = 0;

  constructor(keepEveryLine: boolean) {
    this.everyLine = keepEveryLine ? [] : null;
  }

  add(timeMs: number, node: string, what: string): void {
    assert(!what.includes('\n'), 'an event is one line');
    const line = `${timeMs} ${node} ${what}`;
    this.firstHash = fnv1a(line + '\n', this.firstHash);
    this.secondHash = fnv1a(line + '\n', this.secondHash);
    this.count++;
    this.everyLine?.push(line);
    if (this.tail.length < tailLinesMax) {
      this.tail.push(line);
    } else {
      this.tail[this.tailStart] = line;
      this.tailStart = (this.tailStart + 1) % tailLinesMax;
    }
  }

  /** 16 hexadecimal digits over every line so far. */
  digest(): string {
    const hex = (value: number) => value.toString(16).padStart(8, '0');
    return hex(this.firstHash) + hex(this.secondHash);
  }

  /** The last lines, oldest first. */
  lastLines(): string[] {
    return [...this.tail.slice(this.tailStart), ...this.tail.slice(0, this.tailStart)];
  }

  /** Every line, or null when the log was not asked to keep them. */
  lines(): readonly string[] | null {
    return this.everyLine;
  }
}

/** FNV-1a over bytes, as 8 hexadecimal digits: a frame's fingerprint in the log. */
export function bytesDigest(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < bytes.length; index++) {
    hash ^= bytes[index]!;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
