/**
 * The visited set: 64-bit fingerprints in one Int32Array, open addressing with linear
 * probing, doubled when three quarters full. 8 bytes a slot and no objects, where a
 * `Set<string>` of JSON costs hundreds of bytes a state.
 */
import { ok as assert } from 'node:assert';

const initialCapacitySlots = 1 << 16;
const maximumCapacitySlots = 1 << 30;

export class FingerprintSet {
  private slots: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacitySlots = initialCapacitySlots) {
    assert((capacitySlots & (capacitySlots - 1)) === 0, 'capacity must be a power of two');
    this.slots = new Int32Array(capacitySlots * 2);
    this.mask = capacitySlots - 1;
  }

  /** Adds the fingerprint; returns false when it was already present. */
  add(high: number, low: number): boolean {
    assert(high !== 0 || low !== 0, 'the zero fingerprint marks an empty slot');
    if (this.size * 4 >= (this.mask + 1) * 3) this.grow();
    const slots = this.slots;
    let slot = (high ^ Math.imul(low, 0x9e3779b1)) & this.mask;
    for (;;) {
      const slotHigh = slots[slot * 2]!;
      const slotLow = slots[slot * 2 + 1]!;
      if (slotHigh === 0 && slotLow === 0) {
        slots[slot * 2] = high;
        slots[slot * 2 + 1] = low;
        this.size++;
        return true;
      }
      if (slotHigh === high && slotLow === low) return false;
      slot = (slot + 1) & this.mask;
    }
  }

  has(high: number, low: number): boolean {
    const slots = this.slots;
    let slot = (high ^ Math.imul(low, 0x9e3779b1)) & this.mask;
    for (;;) {
      const slotHigh = slots[slot * 2]!;
      const slotLow = slots[slot * 2 + 1]!;
      if (slotHigh === 0 && slotLow === 0) return false;
      if (slotHigh === high && slotLow === low) return true;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Every stored fingerprint, (high, low) pairs, for a checkpoint. */
  fingerprints(): Int32Array {
    const pairs = new Int32Array(this.size * 2);
    let next = 0;
    for (let slot = 0; slot < this.slots.length; slot += 2) {
      if (this.slots[slot] === 0 && this.slots[slot + 1] === 0) continue;
      pairs[next++] = this.slots[slot]!;
      pairs[next++] = this.slots[slot + 1]!;
    }
    return pairs;
  }

  /** Bytes held by the table, for the benchmark's bytes-per-state figure. */
  get bytes(): number {
    return this.slots.byteLength;
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    assert(capacity <= maximumCapacitySlots, 'fingerprint set exceeds 2^30 slots');
    const old = this.slots;
    this.slots = new Int32Array(capacity * 2);
    this.mask = capacity - 1;
    this.size = 0;
    for (let slot = 0; slot < old.length; slot += 2) {
      const high = old[slot]!;
      const low = old[slot + 1]!;
      if (high !== 0 || low !== 0) this.add(high, low);
    }
  }
}
