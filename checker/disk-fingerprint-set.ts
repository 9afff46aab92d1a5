/**
 * The disk mode's visited set, in the manner of TLC's DiskFPSet: a bounded batch in memory
 * and every fingerprint found before it in one sorted file. A state not in the batch's table
 * is a candidate, kept with its encoding; when the batch is full, or at a level's end, it is
 * resolved: its fingerprints are sorted (fingerprint-sort.ts) and merged with the sorted
 * file in one pass, which writes the file's next version and finds the candidates the file
 * did not hold. Those are the new states, handed on in the order they were generated, so the
 * next frontier's order (and every count) is the in-memory search's.
 */
import { ok as assert } from 'node:assert';
import { FingerprintSet, initialCapacitySlots } from './fingerprint-set.js';
import { compareFingerprints, recordWords, sortFingerprintRecords } from './fingerprint-sort.js';
import type { Directory } from './storage.js';
import { WordFileReader, WordFileWriter } from './word-file.js';

/** How a memory cap is shared out (diskBudget). */
export interface DiskBudget {
  /** Candidates a batch holds at most. */
  readonly candidates: number;
  /** Words of candidates a batch holds (each: length, parent link, then its encoding). */
  readonly stateWords: number;
  /** Words of each of the five file buffers (two for this set, two for the frontier, one
   * for the parent links). */
  readonly streamWords: number;
}

/** Memory per candidate: table slot at four fifths full, record and its scratch, flag. */
const bytesPerCandidate = 10 + 2 * recordWords * 4 + 1;
const streamCount = 5;
export const minimumMemoryBytes = 64 * 1024;

/** The cap split: file buffers of 1/64 each (up to 1 MiB), then 60 % for the batch's arrays. */
export function diskBudget(memoryBytes: number): DiskBudget {
  assert(memoryBytes >= minimumMemoryBytes, `a memory cap of at least ${minimumMemoryBytes}`);
  const streamWords = Math.min(Math.max(Math.floor(memoryBytes / 64 / 4), 1024), 1 << 18);
  const rest = memoryBytes - streamCount * streamWords * 4;
  const candidates = Math.min(Math.floor((rest * 0.6) / bytesPerCandidate), 1 << 28);
  return { candidates, stateWords: Math.floor((rest * 0.4) / 4), streamWords };
}

/** A candidate's words before its encoding: length, parent index, action index. */
const entryWords = 3;

const fileName = 'disk-visited.bin';
const nextFileName = 'disk-visited.next';

/** Called with each new state's link (disk-parents.ts) and encoding, in the order they came. */
export type NewState = (
  parentIndex: number, actionIndex: number, words: Int32Array, start: number, end: number,
) => void;

export class DiskFingerprintSet {
  /** The batch's fingerprints: the explorer deduplicates within the batch against it. */
  readonly table: FingerprintSet;
  /** Distinct states known: the sorted file's. */
  size = 0;
  /** Batches resolved, each one merge pass over the file. */
  merges = 0;
  private count = 0;
  /** Per candidate: high, low, its index in generation order (fingerprint-sort.ts). */
  private readonly records: Int32Array;
  private readonly scratch: Int32Array;
  private readonly fresh: Uint8Array;
  private states: Int32Array;
  private statesLength = 0;
  /** The sorted file: the working one, or a checkpoint's until the next merge. */
  private current = fileName;

  /** `resumed`: a checkpoint's sorted file and its count (disk-checkpoint.ts). */
  constructor(
    private readonly directory: Directory,
    private readonly budget: DiskBudget,
    private readonly onNew: NewState,
    resumed?: { readonly file: string; readonly size: number },
  ) {
    assert(budget.candidates >= 16, 'a batch of 16 candidates or more');
    // Room for a full batch and one more (FingerprintSet grows at 85 %) at most; it starts
    // small and grows with the batch, since a table sized for the whole cap (117 MB at 512m)
    // makes a small batch's adds miss the cache and every level clear all of it.
    const fullBatchSlots = Math.ceil(((budget.candidates + 2) * 5) / 4) + 1;
    this.table = new FingerprintSet(Math.min(initialCapacitySlots, fullBatchSlots),
      fullBatchSlots);
    this.records = new Int32Array(budget.candidates * recordWords);
    this.scratch = new Int32Array(budget.candidates * recordWords);
    this.fresh = new Uint8Array(budget.candidates);
    this.states = new Int32Array(budget.stateWords);
    directory.remove(fileName);
    directory.remove(nextFileName);
    if (resumed) {
      this.current = resumed.file;
      this.size = resumed.size;
    }
  }

  /**
   * Renames the sorted file to `name` for a checkpoint, which keeps it: the next merge reads
   * it and writes the working file beside it. Returns its name.
   */
  pin(name: string): string {
    // A merge a level: between two checkpoints the file is always the working one.
    assert(this.current === fileName, 'a merge since the last checkpoint');
    this.directory.rename(fileName, name);
    this.current = name;
    return name;
  }

  /**
   * Keeps a candidate the explorer has just added to `table`, with its parent link. A full
   * batch is resolved first, and the candidate goes into the next one.
   */
  add(
    high: number, low: number, parentIndex: number, actionIndex: number,
    words: Int32Array, start: number, end: number,
  ): void {
    const length = end - start;
    const full = this.count === this.budget.candidates;
    if (full || this.statesLength + length + entryWords > this.states.length) {
      this.resolve();
      this.table.add(high, low);
      // A state larger than the whole buffer gets a buffer of its own size.
      if (length + entryWords > this.states.length) {
        this.states = new Int32Array(length + entryWords);
      }
    }
    const index = this.count++;
    const records = this.records;
    records[index * recordWords] = high;
    records[index * recordWords + 1] = low;
    records[index * recordWords + 2] = index;
    const states = this.states;
    let position = this.statesLength;
    states[position++] = length;
    states[position++] = parentIndex;
    states[position++] = actionIndex;
    for (let word = start; word < end; word++) states[position++] = words[word]!;
    this.statesLength = position;
  }

  /** Decides the batch against the file, hands on the new states and empties the batch. */
  resolve(): void {
    const count = this.count;
    if (count === 0) return;
    sortFingerprintRecords(this.records, count, this.scratch);
    this.fresh.fill(0, 0, count);
    this.merge(count);
    const states = this.states;
    for (let index = 0, position = 0; index < count; index++) {
      const start = position + entryWords;
      const end = start + states[position]!;
      if (this.fresh[index] === 1) {
        this.onNew(states[position + 1]!, states[position + 2]!, states, start, end);
      }
      position = end;
    }
    this.count = 0;
    this.statesLength = 0;
    this.table.clear();
  }

  /** Bytes held in memory (the file's are not). */
  get bytes(): number {
    return this.table.bytes + this.records.byteLength +
      this.scratch.byteLength + this.fresh.byteLength + this.states.byteLength +
      2 * this.budget.streamWords * 4;
  }

  /** Removes the working files: they serve only this search (a checkpoint's stay). */
  close(): void {
    this.directory.remove(fileName);
    this.directory.remove(nextFileName);
  }

  /**
   * One pass over the sorted file and the sorted batch: writes their union as the file's
   * next version and flags each candidate the file did not hold.
   */
  private merge(count: number): void {
    const { records, fresh } = this;
    const reader = new WordFileReader(this.directory, this.current, this.budget.streamWords);
    const writer = new WordFileWriter(this.directory, nextFileName, this.budget.streamWords);
    let added = 0;
    for (let offset = 0; offset < count * recordWords; offset += recordWords) {
      const high = records[offset]!;
      const low = records[offset + 1]!;
      let known = false;
      while (reader.ensure(2)) {
        const words = reader.words;
        const position = reader.position;
        const comparison = compareFingerprints(words[position]!, words[position + 1]!, high, low);
        if (comparison > 0) break;
        writer.push(words[position]!);
        writer.push(words[position + 1]!);
        reader.position = position + 2;
        if (comparison === 0) {
          known = true;
          break;
        }
      }
      if (known) continue;
      writer.push(high);
      writer.push(low);
      fresh[records[offset + 2]!] = 1;
      added++;
    }
    while (reader.ensure(2)) {
      writer.pushWords(reader.words, reader.position, reader.end);
      reader.position = reader.end;
    }
    reader.close();
    writer.close();
    assert(writer.written === (this.size + added) * 2, 'each fingerprint once in the merge');
    // A checkpoint's file stays (disk-checkpoint.ts removes it); the working one is replaced.
    this.directory.rename(nextFileName, fileName);
    this.current = fileName;
    this.size += added;
    this.merges++;
  }
}
