/**
 * Lowe's memoisation for the Wing–Gong search: the set of (linearised operations, model state)
 * configurations already explored. Reaching one again cannot lead anywhere new, so the search
 * skips it. Keys are a 64-bit Zobrist hash of the bitset mixed with the model's state hash;
 * a hit is confirmed by comparing the stored bitset and `equal` on the states, so the
 * memoisation is exact (a hash collision can cost time, never a wrong verdict).
 *
 * Open addressing over typed arrays; bitsets live in one growing arena.
 */
import { assert } from '../../spec/assert.js';

const initialCapacity = 1 << 12;
/** Grow when the table is more than half full (linear probing stays short). */
const loadFactorNumerator = 1;
const loadFactorDenominator = 2;

export class SeenSet<State> {
  private slots: Int32Array = new Int32Array(initialCapacity);
  private keysA: Int32Array = new Int32Array(initialCapacity / 2);
  private keysB: Int32Array = new Int32Array(initialCapacity / 2);
  private readonly states: State[] = [];
  private bitsets: Uint32Array;
  private entries = 0;

  constructor(
    private readonly words: number,
    private readonly equal: (left: State, right: State) => boolean,
  ) {
    assert(words >= 1, 'a bitset has at least one word');
    this.bitsets = new Uint32Array((initialCapacity / 2) * words);
  }

  get size(): number {
    return this.entries;
  }

  /** Bytes held by the tables (a rough figure for the bench). */
  get bytes(): number {
    return this.slots.byteLength + this.keysA.byteLength * 2 + this.bitsets.byteLength;
  }

  /** Adds the configuration; returns false when it was already present. */
  insert(keyA: number, keyB: number, bitset: Uint32Array, state: State): boolean {
    let mask = this.slots.length - 1;
    let slot = keyA & mask;
    for (;;) {
      const stored = this.slots[slot]!;
      if (stored === 0) break;
      const entry = stored - 1;
      if (this.keysA[entry] === keyA && this.keysB[entry] === keyB
        && this.sameBitset(entry, bitset) && this.equal(this.states[entry]!, state)) {
        return false;
      }
      slot = (slot + 1) & mask;
    }
    if ((this.entries + 1) * loadFactorDenominator > this.slots.length * loadFactorNumerator) {
      this.grow();
      mask = this.slots.length - 1;
      slot = keyA & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    }
    this.append(keyA, keyB, bitset, state);
    this.slots[slot] = this.entries;
    return true;
  }

  private sameBitset(entry: number, bitset: Uint32Array): boolean {
    const offset = entry * this.words;
    const stored = this.bitsets;
    for (let word = 0; word < this.words; word++) {
      if (stored[offset + word] !== bitset[word]) return false;
    }
    return true;
  }

  private append(keyA: number, keyB: number, bitset: Uint32Array, state: State): void {
    const entry = this.entries;
    if (entry === this.keysA.length) {
      this.keysA = grown(this.keysA, this.keysA.length * 2);
      this.keysB = grown(this.keysB, this.keysB.length * 2);
      const bitsets = new Uint32Array(this.bitsets.length * 2);
      bitsets.set(this.bitsets);
      this.bitsets = bitsets;
    }
    this.keysA[entry] = keyA;
    this.keysB[entry] = keyB;
    this.states.push(state);
    this.bitsets.set(bitset, entry * this.words);
    this.entries = entry + 1;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let entry = 0; entry < this.entries; entry++) {
      let slot = this.keysA[entry]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = entry + 1;
    }
    this.slots = slots;
  }
}

function grown(array: Int32Array, length: number): Int32Array {
  const bigger = new Int32Array(length);
  bigger.set(array);
  return bigger;
}
