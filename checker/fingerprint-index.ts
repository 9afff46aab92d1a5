/**
 * The parallel search's visited set: 64-bit fingerprints mapped to local state ids, open
 * addressing with linear probing, doubled when three quarters full. 12 bytes a slot: the id
 * lets a worker tell a state of the level being built from an older one, so that a lesser
 * path found later in the level can replace the state's parent (parallel-bfs.ts).
 */
import { ok as assert } from 'node:assert';

const initialCapacitySlots = 1 << 16;
const maximumCapacitySlots = 1 << 30;
const slotWords = 3;

export class FingerprintIndex {
  private slots: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacitySlots = initialCapacitySlots) {
    assert((capacitySlots & (capacitySlots - 1)) === 0, 'capacity must be a power of two');
    this.slots = new Int32Array(capacitySlots * slotWords);
    this.mask = capacitySlots - 1;
  }

  /** Adds the fingerprint with `id` and returns -1, or returns the id it already has. */
  findOrAdd(high: number, low: number, id: number): number {
    assert(high !== 0 || low !== 0, 'the zero fingerprint marks an empty slot');
    assert(id >= 0, 'ids are not negative');
    if (this.size * 4 >= (this.mask + 1) * 3) this.grow();
    const slots = this.slots;
    let slot = (high ^ Math.imul(low, 0x9e3779b1)) & this.mask;
    for (;;) {
      const base = slot * slotWords;
      const slotHigh = slots[base]!;
      const slotLow = slots[base + 1]!;
      if (slotHigh === 0 && slotLow === 0) {
        slots[base] = high;
        slots[base + 1] = low;
        slots[base + 2] = id;
        this.size++;
        return -1;
      }
      if (slotHigh === high && slotLow === low) return slots[base + 2]!;
      slot = (slot + 1) & this.mask;
    }
  }

  get bytes(): number {
    return this.slots.byteLength;
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    assert(capacity <= maximumCapacitySlots, 'fingerprint index exceeds 2^30 slots');
    const old = this.slots;
    this.slots = new Int32Array(capacity * slotWords);
    this.mask = capacity - 1;
    this.size = 0;
    for (let base = 0; base < old.length; base += slotWords) {
      const high = old[base]!;
      const low = old[base + 1]!;
      if (high !== 0 || low !== 0) this.findOrAdd(high, low, old[base + 2]!);
    }
  }
}
