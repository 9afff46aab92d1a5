/**
 * Typed-array storage for the state graph (graph.ts): growable arrays of integers (32-bit,
 * or as narrow as the values seen so far allow) and a table from 64-bit fingerprints to
 * state ids, open addressing with linear probing, which is also the recording BFS's visited
 * set. No objects per state or per edge: a graph of millions of edges stays a few arrays.
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

/** Signed integers in the narrowest array that holds every value pushed (8, 16, 32 bits). */
export type SmallInts = Int8Array | Int16Array | Int32Array;

/**
 * A growable array of small signed integers (action indexes, fairness classes, property
 * bits): 1 byte each while they fit, widened (copied once) when one does not.
 */
export class GrowableSmallInt {
  private values: SmallInts = new Int8Array(initialCapacity);
  length = 0;

  push(value: number): void {
    if (value !== (value << 24) >> 24 && !this.fits(value)) this.widen(value);
    if (this.length === this.values.length) this.values = this.resized(this.values.length * 2);
    this.values[this.length++] = value;
  }

  /** The values as an array of exactly `length` entries (a view, no copy). */
  toArray(): SmallInts {
    return this.values.subarray(0, this.length);
  }

  get bytes(): number {
    return this.values.byteLength;
  }

  private fits(value: number): boolean {
    if (this.values instanceof Int32Array) return true;
    return this.values instanceof Int16Array && value === (value << 16) >> 16;
  }

  private widen(value: number): void {
    assert(value === (value | 0), `${value} does not fit in 32 bits`);
    const wider = value === (value << 16) >> 16 ? Int16Array : Int32Array;
    const values = new wider(this.values.length);
    values.set(this.values);
    this.values = values;
  }

  private resized(length: number): SmallInts {
    const values = new (this.values.constructor as new (length: number) => SmallInts)(length);
    values.set(this.values);
    return values;
  }
}

/**
 * Fingerprint -> state id; three words a slot (high, low, id), doubled when 3/4 full. As the
 * visited set of a search that records the graph (`add`), a new fingerprint gets the next id
 * (ids are given in the order states are found, as the search's parent table does).
 */
export class IdTable {
  private slots = new Int32Array(initialCapacity * 3);
  private mask = initialCapacity - 1;
  size = 0;
  /** After `add` returned false: the id of the fingerprint found. */
  foundId = -1;

  /** Adds the fingerprint under id `size`; false (and `foundId` set) when it was present. */
  add(high: number, low: number): boolean {
    assert(high !== 0 || low !== 0, 'the zero fingerprint marks an empty slot');
    if (this.size * 4 >= (this.mask + 1) * 3) this.grow();
    const slots = this.slots;
    for (let slot = this.home(high, low); ; slot = (slot + 1) & this.mask) {
      const base = slot * 3;
      const slotHigh = slots[base]!;
      const slotLow = slots[base + 1]!;
      if (slotHigh === 0 && slotLow === 0) {
        slots[base] = high;
        slots[base + 1] = low;
        slots[base + 2] = this.size++;
        return true;
      }
      if (slotHigh === high && slotLow === low) {
        this.foundId = slots[base + 2]!;
        return false;
      }
    }
  }

  /** Every stored fingerprint, (high, low) pairs, for a checkpoint. */
  fingerprints(): Int32Array {
    const pairs = new Int32Array(this.size * 2);
    let next = 0;
    for (let base = 0; base < this.slots.length; base += 3) {
      if (this.slots[base] === 0 && this.slots[base + 1] === 0) continue;
      pairs[next++] = this.slots[base]!;
      pairs[next++] = this.slots[base + 1]!;
    }
    return pairs;
  }

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
