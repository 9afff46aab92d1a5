/**
 * Typed-array storage for the state graph (graph.ts): a growable array of 32-bit integers
 * and a table from 64-bit fingerprints to state ids, open addressing with linear probing.
 * No objects per state or per edge: a graph of millions of edges stays a few arrays.
 */
import { ok as assert } from 'node:assert';

const initialCapacity = 1 << 12;
const maximumSlots = 1 << 30;

export class GrowableInt32 {
  private words = new Int32Array(initialCapacity);
  length = 0;

  push(value: number): void {
    if (this.length === this.words.length) {
      const words = new Int32Array(this.words.length * 2);
      words.set(this.words);
      this.words = words;
    }
    this.words[this.length++] = value;
  }

  /** The values as an array of exactly `length` entries (a view, no copy). */
  toArray(): Int32Array {
    return this.words.subarray(0, this.length);
  }

  get bytes(): number {
    return this.words.byteLength;
  }
}

/** Fingerprint -> state id; three words a slot (high, low, id), doubled when 3/4 full. */
export class IdTable {
  private slots = new Int32Array(initialCapacity * 3);
  private mask = initialCapacity - 1;
  size = 0;

  /** The id stored for the fingerprint, or -1. */
  get(high: number, low: number): number {
    const slots = this.slots;
    for (let slot = this.home(high, low); ; slot = (slot + 1) & this.mask) {
      const base = slot * 3;
      if (slots[base] === 0 && slots[base + 1] === 0) return -1;
      if (slots[base] === high && slots[base + 1] === low) return slots[base + 2]!;
    }
  }

  /** Stores a fingerprint that is not in the table yet. */
  set(high: number, low: number, id: number): void {
    assert(high !== 0 || low !== 0, 'the zero fingerprint marks an empty slot');
    if (this.size * 4 >= (this.mask + 1) * 3) this.grow();
    this.place(high, low, id);
    this.size++;
  }

  get bytes(): number {
    return this.slots.byteLength;
  }

  private home(high: number, low: number): number {
    return (high ^ Math.imul(low, 0x9e3779b1)) & this.mask;
  }

  private place(high: number, low: number, id: number): void {
    const slots = this.slots;
    let slot = this.home(high, low);
    while (slots[slot * 3] !== 0 || slots[slot * 3 + 1] !== 0) slot = (slot + 1) & this.mask;
    slots[slot * 3] = high;
    slots[slot * 3 + 1] = low;
    slots[slot * 3 + 2] = id;
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    assert(capacity <= maximumSlots, 'state id table exceeds 2^30 slots');
    const old = this.slots;
    this.slots = new Int32Array(capacity * 3);
    this.mask = capacity - 1;
    for (let base = 0; base < old.length; base += 3) {
      if (old[base] === 0 && old[base + 1] === 0) continue;
      this.place(old[base]!, old[base + 1]!, old[base + 2]!);
    }
  }
}
