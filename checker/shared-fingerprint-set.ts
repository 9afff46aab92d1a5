/**
 * The parallel search's visited set: 64-bit fingerprints in one SharedArrayBuffer that every
 * worker inserts into directly, open addressing with linear probing, with the home slot of
 * the one-thread set (fingerprint-set.ts), grown at 85 % full too, but by half: 57 to 85 %
 * full, 9.4 to 14.1 bytes a fingerprint. The workers keep no parent links, so that is their
 * bytes per state, and growing by half stops them half as often as by a quarter (each
 * growth is a barrier and a rehash on one thread: 24 of them, 7.5 s of a 141 s run, on
 * TwoPhase 9 RMs at load 10). A slot is claimed by a compare-and-swap
 * of its low word; the claimer then writes the high word, and a reader that meets a claimed
 * slot whose high word is still zero waits for it (a few instructions). Probing reads
 * plainly: a slot's words change once, from zero, between two growths. Neither word of a
 * fingerprint is zero (fingerprint.ts, `nonZeroWord`), so zero marks an empty slot and a
 * claim in progress.
 *
 * The buffer is allocated once at the largest capacity and the table uses its first
 * `capacity` slots: the operating system commits a page when it is first written, so the
 * set holds the memory of its capacity, and a grown table is the same buffer (no worker
 * needs a new one). A growable SharedArrayBuffer would do the same, but Node 20's V8 reads
 * a length-tracking view 6 to 8 times slower (2e7 random probes: 4.4 s against 0.72 s).
 *
 * The table grows only while no other thread touches it: the workers meet at a barrier
 * (bfs-worker.ts) and the last to arrive rehashes.
 *
 * Layout (32-bit words): [0] capacity in slots, [16] stored fingerprints (a cache line of
 * its own: every worker adds to it, while every probe reads word 0), then from word 32 two
 * words (high, low) per slot.
 */
import { ok as assert } from 'node:assert';
import { grownCapacity, homeSlot, initialCapacitySlots, needsGrowth } from './fingerprint-set.js';

const capacityWord = 0;
const sizeWord = 16;
const headerWords = 32;
const growthFactor = 1.5;
/** 2^28 slots of 8 bytes: a 2 GiB reservation, committed as the table grows into it. */
const maximumCapacitySlots = 1 << 28;

export class SharedFingerprintSet {
  private readonly words: Int32Array;

  /** A new table, or a view of one another thread created (`buffer`). */
  constructor(buffer?: SharedArrayBuffer) {
    if (buffer === undefined) {
      buffer = new SharedArrayBuffer((headerWords + maximumCapacitySlots * 2) * 4);
      this.words = new Int32Array(buffer);
      this.words[capacityWord] = initialCapacitySlots;
    } else {
      this.words = new Int32Array(buffer);
    }
  }

  get buffer(): SharedArrayBuffer {
    return this.words.buffer as SharedArrayBuffer;
  }

  get capacitySlots(): number {
    return this.words[capacityWord]!;
  }

  get size(): number {
    return Atomics.load(this.words, sizeWord);
  }

  /** Counts `count` insertions at once: one shared write per batch, not one per state. */
  addToSize(count: number): number {
    return Atomics.add(this.words, sizeWord, count) + count;
  }

  /** True once 85 % full: the table should grow before many more insertions. */
  needsGrowth(size: number): boolean {
    return needsGrowth(size, this.capacitySlots);
  }

  /**
   * The low word of the fingerprint's home slot: a read to bring the slot into the cache
   * before `add` looks (Successors.probe reads a whole batch's slots first).
   */
  probe(high: number, low: number): number {
    const words = this.words;
    return words[headerWords + homeSlot(high, low, words[capacityWord]!) * 2 + 1]!;
  }

  /**
   * Inserts the fingerprint (neither word zero); returns false when it was present. The
   * caller counts insertions (`addToSize`).
   */
  add(high: number, low: number): boolean {
    const words = this.words;
    const capacity = words[capacityWord]!;
    let slot = homeSlot(high, low, capacity);
    for (let probes = 0; probes < capacity; probes++) {
      const base = headerWords + slot * 2;
      let slotLow = words[base + 1]!;
      if (slotLow === 0) {
        slotLow = Atomics.compareExchange(words, base + 1, 0, low);
        if (slotLow === 0) {
          Atomics.store(words, base, high);
          return true;
        }
      }
      if (slotLow === low) {
        let slotHigh = words[base]!;
        // The claimer writes the high word right after its claim.
        while (slotHigh === 0) slotHigh = Atomics.load(words, base);
        if (slotHigh === high) return false;
      }
      slot = slot + 1 === capacity ? 0 : slot + 1;
    }
    throw new Error('shared fingerprint set is full');
  }

  /**
   * Grows the table until `size` fingerprints leave it less than four fifths full,
   * rehashing in place from a copy. Only while no other thread touches the table.
   */
  growFor(size: number): void {
    const old = this.capacitySlots;
    let capacity = old;
    while (needsGrowth(size, capacity)) capacity = grownCapacity(capacity, growthFactor);
    if (capacity === old) return;
    assert(capacity <= maximumCapacitySlots, 'shared fingerprint set exceeds 2^28 slots');
    const slots = this.words.slice(headerWords, headerWords + old * 2);
    this.words.fill(0, headerWords, headerWords + old * 2);
    this.words[capacityWord] = capacity;
    for (let base = 0; base < slots.length; base += 2) {
      const low = slots[base + 1]!;
      if (low !== 0) this.place(slots[base]!, low, capacity);
    }
  }

  /**
   * Grows the table, between levels, for the `expected` fingerprints the next level should
   * hold, so the workers rarely stop mid-level to grow it (a barrier that waits for the
   * slowest). Leaves a table it could not grow that far as it is: the workers' own growth
   * then meets the limit as before. Only while no other thread touches the table.
   */
  growAhead(expected: number): void {
    let capacity = this.capacitySlots;
    while (needsGrowth(expected, capacity)) capacity = grownCapacity(capacity, growthFactor);
    if (capacity <= maximumCapacitySlots) this.growFor(expected);
  }

  /**
   * Stores a fingerprint known to be absent, with plain writes: only while no other thread
   * touches the table (a compare-and-swap per fingerprint made rehashing 2 to 3 times slower).
   */
  private place(high: number, low: number, capacity: number): void {
    const words = this.words;
    let slot = homeSlot(high, low, capacity);
    while (words[headerWords + slot * 2 + 1] !== 0) slot = slot + 1 === capacity ? 0 : slot + 1;
    words[headerWords + slot * 2] = high;
    words[headerWords + slot * 2 + 1] = low;
  }

  /** Every stored fingerprint, (high, low) pairs, for a checkpoint (no thread inserting). */
  fingerprints(): Int32Array {
    const pairs = new Int32Array(this.size * 2);
    let next = 0;
    const end = headerWords + this.capacitySlots * 2;
    for (let base = headerWords; base < end; base += 2) {
      if (this.words[base + 1] === 0) continue;
      pairs[next++] = this.words[base]!;
      pairs[next++] = this.words[base + 1]!;
    }
    return pairs;
  }

  /** Restores fingerprints from a checkpoint, no thread inserting. */
  restore(pairs: Int32Array): void {
    this.growFor(this.size + pairs.length / 2);
    let added = 0;
    for (let index = 0; index < pairs.length; index += 2) {
      if (this.add(pairs[index]!, pairs[index + 1]!)) added++;
    }
    this.addToSize(added);
  }

  /** Bytes the table uses (and the system has committed): its slots and header. */
  get bytes(): number {
    return (headerWords + this.capacitySlots * 2) * 4;
  }
}
