/**
 * The size of each key's value as this clerk last saw it (a get's answer, its own put, its
 * own append added on), so that a get's attempt timeout can count the value it will bring
 * back (spec/client/attempt-timeout.ts requestBytes). A hint only: another client may have
 * changed the value since; a wrong size costs one retry too many or one wait too long.
 */
import type { ClientOperation } from '../../spec/group/types.js';

/** Keys remembered at most; the oldest seen is forgotten first. */
const keysMax = 4096;

export class ValueSizes {
  private readonly bytes = new Map<string, number>();

  /** The size last seen for `key`, 0 when none. */
  of(key: string): number {
    return this.bytes.get(key) ?? 0;
  }

  /** An operation on `key` answered ok: `value` is a get's answer, a put's or append's argument. */
  answered(op: ClientOperation, key: string, value: string): void {
    const known = this.bytes.get(key);
    if (op === 'append' && known === undefined) return;
    const size = Buffer.byteLength(value, 'utf8') + (op === 'append' ? known! : 0);
    this.bytes.delete(key);
    this.bytes.set(key, size);
    if (this.bytes.size > keysMax) this.bytes.delete(this.bytes.keys().next().value!);
  }
}
