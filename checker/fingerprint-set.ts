/**
 * The visited set: 64-bit fingerprints in one Int32Array, open addressing with linear
 * probing. 8 bytes a slot and no objects, where a `Set<string>` of JSON costs hundreds of
 * bytes a state. The table grows by a quarter once 85 % full, so it is 68 to 85 % full:
 * 9.4 to 11.8 bytes a state, which with a 4-byte parent link (state-store.ts) keeps BFS
 * under 16 bytes a visited state (grown by half at four fifths full it was 10 to 15;
 * doubled at three quarters, 11 to 21). The capacity need not be a power of two: a
 * fingerprint's home slot is its hash scaled to the capacity (a multiply, not a mask), so
 * growing by a quarter is as easy as doubling, and a rehash in slot order writes the new
 * table nearly in order.
 */
import { ok as assert } from 'node:assert';

export const initialCapacitySlots = 1 << 16;
const maximumCapacitySlots = 1 << 30;
/** 2^-32: scales a 32-bit hash to [0, 1). */
const hashScale = 1 / 4294967296;

/** True once 85 % full: time to grow (both sets, shared-fingerprint-set.ts too). */
export function needsGrowth(size: number, capacity: number): boolean {
  return size * 20 >= capacity * 17;
}

/** The next capacity: a quarter larger (or by `factor`). */
export function grownCapacity(capacity: number, factor = 1.25): number {
  return Math.ceil(capacity * factor);
}

/**
 * The slot probing starts at: the hash times the capacity, over 2^32. The product may
 * round, by at most half its last place (capacity / 2^21), so it stays below
 * capacity * 2^32 and the slot below capacity.
 */
export function homeSlot(high: number, low: number, capacity: number): number {
  const hash = (high ^ Math.imul(low, 0x9e3779b1)) >>> 0;
  return Math.floor(hash * capacity * hashScale);
}

export class FingerprintSet {
  private slots: Int32Array;
  private capacity: number;
  size = 0;

  /**
   * `largestSlots` caps the growth: a set that never holds more than 4/5 of it (the disk
   * mode's batch) grows with its contents up to that size and no further.
   */
  constructor(
    capacitySlots = initialCapacitySlots,
    private readonly largestSlots = maximumCapacitySlots,
  ) {
    assert(Number.isInteger(capacitySlots) && capacitySlots >= 2, 'at least two slots');
    this.slots = new Int32Array(capacitySlots * 2);
    this.capacity = capacitySlots;
  }

  /** Adds the fingerprint; returns false when it was already present. */
  add(high: number, low: number): boolean {
    assert(high !== 0 || low !== 0, 'the zero fingerprint marks an empty slot');
    if (needsGrowth(this.size, this.capacity)) this.grow();
    const slots = this.slots;
    for (let slot = this.home(high, low); ; slot = this.after(slot)) {
      const slotHigh = slots[slot * 2]!;
      const slotLow = slots[slot * 2 + 1]!;
      if (slotHigh === 0 && slotLow === 0) {
        slots[slot * 2] = high;
        slots[slot * 2 + 1] = low;
        this.size++;
        return true;
      }
      if (slotHigh === high && slotLow === low) return false;
    }
  }

  has(high: number, low: number): boolean {
    const slots = this.slots;
    for (let slot = this.home(high, low); ; slot = this.after(slot)) {
      const slotHigh = slots[slot * 2]!;
      const slotLow = slots[slot * 2 + 1]!;
      if (slotHigh === 0 && slotLow === 0) return false;
      if (slotHigh === high && slotLow === low) return true;
    }
  }

  /**
   * The first word of the fingerprint's home slot: a read to bring the slot into the cache
   * before `add` looks (Successors.probe reads a whole batch's slots first).
   */
  probe(high: number, low: number): number {
    return this.slots[this.home(high, low) * 2]!;
  }

  /** Empties the set and keeps its table (the disk mode's batch, disk-fingerprint-set.ts). */
  clear(): void {
    this.slots.fill(0);
    this.size = 0;
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

  private home(high: number, low: number): number {
    return homeSlot(high, low, this.capacity);
  }

  private after(slot: number): number {
    return slot + 1 === this.capacity ? 0 : slot + 1;
  }

  /**
   * Rehashes into a table a quarter larger. Inserted without `add`'s checks: every old
   * fingerprint is distinct and non-zero, and the new table has room for all of them. Home
   * slots grow with the hash, so the old table, read in slot order, is written nearly in
   * order too.
   */
  private grow(): void {
    const capacity = Math.min(grownCapacity(this.capacity), this.largestSlots);
    assert(capacity > this.capacity, `fingerprint set exceeds ${this.largestSlots} slots`);
    const old = this.slots;
    const slots = new Int32Array(capacity * 2);
    for (let oldSlot = 0; oldSlot < old.length; oldSlot += 2) {
      const high = old[oldSlot]!;
      const low = old[oldSlot + 1]!;
      if (high === 0 && low === 0) continue;
      let slot = homeSlot(high, low, capacity);
      while (slots[slot * 2] !== 0 || slots[slot * 2 + 1] !== 0) {
        slot = slot + 1 === capacity ? 0 : slot + 1;
      }
      slots[slot * 2] = high;
      slots[slot * 2 + 1] = low;
    }
    this.slots = slots;
    this.capacity = capacity;
  }
}
