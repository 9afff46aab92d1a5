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
 * Open addressing over typed arrays; windows live in one growing arena. The tables grow only up
 * to `bytesMax`: a configuration that would not fit sets `exhausted` instead, and the search
 * then stops with "unknown" (a configuration left out would be explored again, or, worse,
 * taken for one already seen: the verdict must never rest on a missing entry).
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
  /** Set when a configuration did not fit in `bytesMax`: the table is no longer complete. */
  exhausted = false;

  /** Takes the model, not a fresh closure per search: one call target keeps `insert` optimised. */
  constructor(private readonly model: { equal(left: State, right: State): boolean },
    private readonly bytesMax = Infinity) {}

  get size(): number {
    return this.entries;
  }

  /** Bytes held by the tables: the typed arrays and the states' array (8 bytes a state). */
  get bytes(): number {
    return this.slots.byteLength + this.keysA.byteLength * 6 + this.windows.byteLength;
  }

  /** Forgets every configuration but keeps the tables' capacity. */
  clear(): void {
    this.exhausted = false;
    if (this.entries === 0) return;
    this.slots.fill(0);
    this.states.length = 0;
    this.entries = 0;
  }

  /**
   * Adds the configuration (operations [0, settled) and window[0, windowLength), state);
   * returns false when it was already present. Returns true without adding it, and sets
   * `exhausted`, when the tables would outgrow `bytesMax`.
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
    if (!this.fits(windowLength)) {
      this.exhausted = true;
      return true;
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

  /** Whether one more entry with a window this long keeps the tables within `bytesMax`. */
  private fits(windowLength: number): boolean {
    if (this.bytesMax === Infinity) return true;
    const entry = this.entries;
    const slotsGrow = (entry + 1) * loadFactorDenominator > this.slots.length * loadFactorNumerator;
    const entriesGrow = entry === this.keysA.length;
    const windowEnd = this.windowOffsets[entry]! + windowLength;
    const windowsGrow = windowEnd > this.windows.length;
    // A table that must grow is replaced by one of twice its size, while the old one is alive.
    const growth = (slotsGrow ? this.slots.byteLength * 2 : 0)
      + (entriesGrow ? this.keysA.byteLength * 6 * 2 : 0)
      + (windowsGrow ? Math.max(this.windows.length * 2, windowEnd) * 4 : 0);
    return this.bytes + growth <= this.bytesMax;
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
