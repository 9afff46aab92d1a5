/**
 * Lowe's memoisation for the Wing–Gong search: the set of (linearized operations, model state)
 * configurations already explored. Reaching one again cannot lead anywhere new, so the search
 * skips it. Keys are a 64-bit Zobrist hash of the set mixed with the model's state hash; a hit
 * is confirmed by comparing the stored set and `equal` on the states, so the memoisation is
 * exact (a hash collision can cost time, never a wrong verdict).
 *
 * A set is stored compactly, not as a bitset: operations are numbered in return order, and a
 * linearized set is "every operation below `settled`" plus a short sorted window of later ones
 * (those called before the first unlinearized operation returned, so about as many as there
 * are clients). A bitset per entry cost n/8 bytes and dominated the time on long histories.
 *
 * Open addressing over typed arrays; windows live in one growing arena.
 */

const initialCapacity = 1 << 12;
/** Grow when the table is more than half full (linear probing stays short). */
const loadFactorNumerator = 1;
const loadFactorDenominator = 2;

export class SeenSet<State> {
  private slots: Int32Array = new Int32Array(initialCapacity);
  private keysA: Int32Array = new Int32Array(initialCapacity / 2);
  private keysB: Int32Array = new Int32Array(initialCapacity / 2);
  private settledCounts: Int32Array = new Int32Array(initialCapacity / 2);
  private windowOffsets: Int32Array = new Int32Array(initialCapacity / 2 + 1);
  private readonly states: State[] = [];
  private windows: Int32Array = new Int32Array(initialCapacity);
  private entries = 0;

  /** Takes the model, not a fresh closure per search: one call target keeps `insert` optimised. */
  constructor(private readonly model: { equal(left: State, right: State): boolean }) {}

  get size(): number {
    return this.entries;
  }

  /** Bytes held by the tables (a rough figure for the bench). */
  get bytes(): number {
    return this.slots.byteLength + this.keysA.byteLength * 4 + this.windows.byteLength;
  }

  /** Forgets every configuration but keeps the tables' capacity. */
  clear(): void {
    if (this.entries === 0) return;
    this.slots.fill(0);
    this.states.length = 0;
    this.entries = 0;
  }

  /**
   * Adds the configuration (operations [0, settled) and window[0, windowLength), state);
   * returns false when it was already present.
   */
  insert(
    keyA: number, keyB: number, settled: number, window: Int32Array, windowLength: number,
    state: State,
  ): boolean {
    let mask = this.slots.length - 1;
    let slot = keyA & mask;
    for (;;) {
      const stored = this.slots[slot]!;
      if (stored === 0) break;
      const entry = stored - 1;
      if (this.keysA[entry] === keyA && this.keysB[entry] === keyB
        && this.settledCounts[entry] === settled && this.sameWindow(entry, window, windowLength)
        && this.model.equal(this.states[entry]!, state)) {
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
    this.append(keyA, keyB, settled, window, windowLength, state);
    this.slots[slot] = this.entries;
    return true;
  }

  private sameWindow(entry: number, window: Int32Array, windowLength: number): boolean {
    const start = this.windowOffsets[entry]!;
    if (this.windowOffsets[entry + 1]! - start !== windowLength) return false;
    const stored = this.windows;
    for (let index = 0; index < windowLength; index++) {
      if (stored[start + index] !== window[index]) return false;
    }
    return true;
  }

  private append(
    keyA: number, keyB: number, settled: number, window: Int32Array, windowLength: number,
    state: State,
  ): void {
    const entry = this.entries;
    if (entry === this.keysA.length) {
      this.keysA = grown(this.keysA, this.keysA.length * 2);
      this.keysB = grown(this.keysB, this.keysB.length * 2);
      this.settledCounts = grown(this.settledCounts, this.settledCounts.length * 2);
      this.windowOffsets = grown(this.windowOffsets, this.windowOffsets.length * 2);
    }
    const start = this.windowOffsets[entry]!;
    if (start + windowLength > this.windows.length) {
      this.windows = grown(this.windows, Math.max(this.windows.length * 2, start + windowLength));
    }
    for (let index = 0; index < windowLength; index++) this.windows[start + index] = window[index]!;
    this.windowOffsets[entry + 1] = start + windowLength;
    this.keysA[entry] = keyA;
    this.keysB[entry] = keyB;
    this.settledCounts[entry] = settled;
    this.states.push(state);
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
