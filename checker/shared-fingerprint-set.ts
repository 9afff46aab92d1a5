/**
 * The parallel search's visited set: 64-bit fingerprints in one growable SharedArrayBuffer
 * that every worker inserts into directly, open addressing with linear probing. A slot is
 * claimed by a compare-and-swap of its low word; the claimer then writes the high word, and
 * a reader that meets a claimed slot whose high word is still zero waits for it (a few
 * instructions). Probing reads plainly: a slot's words change once, from zero. Neither word
 * of a fingerprint is zero (fingerprint.ts, `nonZeroWord`), so zero marks an empty slot and
 * a claim in progress.
 *
 * The table grows only when no worker inserts (between levels, parallel-bfs.ts): a worker
 * that finds it three quarters full keeps its new states aside until then (`full`).
 *
 * Layout (32-bit words): [0] slot count minus one (the mask), [1] stored fingerprints, then
 * two words (high, low) per slot.
 */
import { ok as assert } from 'node:assert';

const headerWords = 2;
const initialCapacitySlots = 1 << 16;
/** A growable SharedArrayBuffer holds at most 4 GiB here: 2^29 slots of 8 bytes. */
const maximumCapacitySlots = 1 << 28;

/** A growable SharedArrayBuffer (ES2024; this project's TypeScript lib is older). */
interface GrowableBuffer extends SharedArrayBuffer {
  grow(byteLength: number): void;
}
type GrowableBufferConstructor = new (
  byteLength: number,
  options: { maxByteLength: number },
) => GrowableBuffer;

export class SharedFingerprintSet {
  private words: Int32Array;

  /** A new table, or a view of one another thread created (`buffer`). */
  constructor(buffer?: SharedArrayBuffer) {
    if (buffer === undefined) {
      const bytes = (headerWords + initialCapacitySlots * 2) * 4;
      const maxByteLength = (headerWords + maximumCapacitySlots * 2) * 4;
      buffer = new (SharedArrayBuffer as unknown as GrowableBufferConstructor)(bytes, { maxByteLength });
      this.words = new Int32Array(buffer);
      this.words[0] = initialCapacitySlots - 1;
    } else {
      this.words = new Int32Array(buffer);
    }
  }

  get buffer(): SharedArrayBuffer {
    return this.words.buffer as SharedArrayBuffer;
  }

  get capacitySlots(): number {
    return this.words[0]! + 1;
  }

  get size(): number {
    return Atomics.load(this.words, 1);
  }

  /** Counts `count` insertions at once: one shared write per batch, not one per state. */
  addToSize(count: number): number {
    return Atomics.add(this.words, 1, count) + count;
  }

  /** True once three quarters full: insert no more until the table grows. */
  full(size: number): boolean {
    return size * 4 >= this.capacitySlots * 3;
  }

  /**
   * Inserts the fingerprint (neither word zero); returns false when it was present. The caller counts insertions (`addToSize`).
   */
  add(high: number, low: number): boolean {
    const words = this.words;
    const mask = words[0]!;
    let slot = (high ^ Math.imul(low, 0x9e3779b1)) & mask;
    for (let probes = 0; probes <= mask; probes++) {
      const base = headerWords + slot * 2;
      // Plain reads suffice to probe: a word goes from zero to its final value only once.
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
      slot = (slot + 1) & mask;
    }
    throw new Error('shared fingerprint set is full');
  }

  /**
   * Grows the table to hold `size` fingerprints at most half full, rehashing in place. Only
   * while no other thread touches the table.
   */
  growFor(size: number): void {
    let capacity = this.capacitySlots;
    while (size * 2 > capacity) capacity *= 2;
    if (capacity === this.capacitySlots) return;
    assert(capacity <= maximumCapacitySlots, 'shared fingerprint set exceeds 2^28 slots');
    const old = this.words.slice(headerWords, headerWords + this.capacitySlots * 2);
    const stored = this.size;
    (this.buffer as GrowableBuffer).grow((headerWords + capacity * 2) * 4);
    this.words.fill(0, headerWords);
    this.words[0] = capacity - 1;
    for (let base = 0; base < old.length; base += 2) {
      const high = old[base]!;
      const low = old[base + 1]!;
      if (low !== 0) this.add(high, low);
    }
    assert(this.size === stored, 'rehashing keeps the count');
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

  get bytes(): number {
    return this.buffer.byteLength;
  }
}
