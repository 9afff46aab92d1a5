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
 * The table grows only while no thread inserts. Between levels the workers grow it together,
 * each a part (`takePart`, `placePart`): homeSlot is monotone in the hash, so a run of the
 * old table between two empty slots holds the fingerprints of one range of hashes, whose
 * home slots in the grown table form a range too; each worker copies its run and, once
 * every worker has, clears its range of the grown table and places the run there with
 * plain writes; the few whose probe would leave the range wait for `addAll`. Mid-level (a
 * level that outgrew the growth ahead of it) the last worker to arrive at a barrier
 * rehashes alone (bfs-worker.ts), as does the coordinator restoring a checkpoint.
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

/** A growth of the table: its capacity in slots before and after. */
export interface Growth {
  readonly old: number;
  readonly capacity: number;
}

/** One thread's part of a growth: its old slots, copied, and where they go in the grown table. */
export interface GrowthPart {
  readonly slots: Int32Array;
  /** Slots [lower, upper) of the grown table, written by this part alone. */
  readonly lower: number;
  readonly upper: number;
}

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

  /** The growth that leaves `size` fingerprints less than 85 % full, if one is needed. */
  growthFor(size: number): Growth | undefined {
    const old = this.capacitySlots;
    let capacity = old;
    while (needsGrowth(size, capacity)) capacity = grownCapacity(capacity, growthFactor);
    if (capacity === old) return undefined;
    assert(capacity <= maximumCapacitySlots, 'shared fingerprint set exceeds 2^28 slots');
    return { old, capacity };
  }

  /**
   * The capacity a growth ahead of a level should reach for the `expected` fingerprints it
   * should hold (the workers grow the table to it in parts when the level starts); the
   * present capacity when none is needed or the buffer cannot hold it: the workers' own
   * growth then meets the limit as before.
   */
  capacityAhead(expected: number): number {
    let capacity = this.capacitySlots;
    while (needsGrowth(expected, capacity)) capacity = grownCapacity(capacity, growthFactor);
    return capacity <= maximumCapacitySlots ? capacity : this.capacitySlots;
  }

  /** Grows the table for `size` fingerprints on this thread: no other thread touching it. */
  growFor(size: number): void {
    const growth = this.growthFor(size);
    if (growth === undefined) return;
    this.addAll(this.placePart(growth, this.takePart(growth, 0, 1)));
  }

  /**
   * A growth's first step for part `part` of `parts`, each part on its own thread, no thread
   * inserting: copies this part's run of old slots (the table stays as it is until every
   * part is taken). Part i's run starts at the first empty slot from i / parts of the table
   * on; the last part's wraps round to the first part's start.
   */
  takePart(growth: Growth, part: number, parts: number): GrowthPart {
    const { old, capacity } = growth;
    const starts: number[] = [];
    for (let index = 0; index < parts; index++) {
      let slot = Math.max(Math.floor((index * old) / parts), starts[index - 1] ?? 0);
      while (slot < old && this.words[headerWords + slot * 2 + 1] !== 0) slot++;
      starts.push(slot);
    }
    // A run's fingerprints lie after an empty slot, so their old home slots lie after it
    // too, and their grown ones after its image; less one for the rounding of homeSlot.
    const lowerOf = (index: number) =>
      index === 0 ? 0 : Math.max(0, Math.floor(((starts[index]! + 1) * capacity) / old) - 1);
    const last = part === parts - 1;
    const from = starts[part]!;
    const to = last ? old : starts[part + 1]!;
    const wrapped = last ? starts[0]! : 0;
    const slots = new Int32Array((to - from + wrapped) * 2);
    slots.set(this.words.subarray(headerWords + from * 2, headerWords + to * 2));
    slots.set(this.words.subarray(headerWords, headerWords + wrapped * 2), (to - from) * 2);
    const upper = last ? capacity : Math.max(lowerOf(part), lowerOf(part + 1));
    return { slots, lower: lowerOf(part), upper };
  }

  /**
   * A growth's second step, once every part is taken: clears this part's slots of the grown
   * table and stores its fingerprints there with plain writes (a compare-and-swap each made
   * rehashing 2 to 3 times slower); returns, as (high, low) pairs, those whose home lies
   * below its slots or whose probe would pass them, for `addAll` once every part is placed.
   */
  placePart(growth: Growth, part: GrowthPart): number[] {
    const words = this.words;
    const { capacity } = growth;
    const { slots, lower, upper } = part;
    words[capacityWord] = capacity;
    words.fill(0, headerWords + lower * 2, headerWords + upper * 2);
    const left: number[] = [];
    for (let base = 0; base < slots.length; base += 2) {
      const high = slots[base]!;
      const low = slots[base + 1]!;
      if (low === 0) continue;
      let slot = homeSlot(high, low, capacity);
      if (slot >= lower) {
        while (slot < upper && words[headerWords + slot * 2 + 1] !== 0) slot++;
      }
      if (slot < lower || slot >= upper) {
        left.push(high, low);
        continue;
      }
      words[headerWords + slot * 2] = high;
      words[headerWords + slot * 2 + 1] = low;
    }
    return left;
  }

  /** Inserts fingerprints known to be absent and already counted (`placePart`'s left). */
  addAll(pairs: readonly number[]): void {
    for (let index = 0; index < pairs.length; index += 2) {
      assert(this.add(pairs[index]!, pairs[index + 1]!), 'a fingerprint left by a part was present');
    }
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
