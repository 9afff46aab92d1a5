/**
 * Compact storage for explored states.
 *
 * `ParentTable` keeps, per distinct state id, the id of the state it was first reached from
 * and the index of the action that reached it, enough to rebuild any path by re-execution:
 * 4 bytes a state while action indexes fit in a byte and every parent is less than 2^24
 * ids back (in BFS, two levels hold at most that many states), else 5 (6 or 8 for wider
 * action indexes). `StateQueue` holds encoded states back to back in one Int32Array, read
 * by an index (never `shift()`), so a BFS level of a million states is one allocation.
 */
import * as assert from 'node:assert';
import type { Path } from './search.js';
import type { WordWriter } from './words.js';

/** Parent id of an initial state; its action slot holds the initial state's index. */
export const noParent = -1;

/** Parent id of a state restored from a checkpoint, whose path is not kept (checkpoint.ts). */
export const unknownParent = -2;

/** The path `pathTo` returns through a state of unknown parent: to be rebuilt by a rerun. */
export const unknownPath: Path = { initialIndex: -1, actionIndexes: [] };

/** The id of a queue entry replaced by a later one (see `StateQueue.replaceWords`). */
export const deadEntry = -1;

/** Entries a chunk of the parent table holds: a chunk is added whole, never copied. */
const parentChunkBits = 16;
const parentChunkEntries = 1 << parentChunkBits;
const parentChunkMask = parentChunkEntries - 1;

/** Action indexes in the narrowest array that holds them; widened when one does not fit. */
type ActionArray = Uint8Array | Uint16Array | Int32Array;

/** The largest action index of the narrowest array that holds `actionIndex`. */
function actionCapacity(actionIndex: number): number {
  return actionIndex <= 0xff ? 0xff : actionIndex <= 0xffff ? 0xffff : 0x7fffffff;
}

function actionArray(capacity: number): ActionArray {
  if (capacity === 0xff) return new Uint8Array(parentChunkEntries);
  if (capacity === 0xffff) return new Uint16Array(parentChunkEntries);
  return new Int32Array(parentChunkEntries);
}

/** Bits of a packed entry that hold the action index; the others, the distance to the parent. */
const packedActionBits = 8;
const packedActionMask = (1 << packedActionBits) - 1;
const packedDistanceLimit = 2 ** (32 - packedActionBits);

export class ParentTable {
  /**
   * While every entry fits, one word a state: (id - parent id) * 256 + action index. The
   * first entry that does not turns the table into `parents` and `actions` for good.
   */
  private packed: Uint32Array[] | undefined = [];
  private readonly parents: Int32Array[] = [];
  private readonly actions: ActionArray[] = [];
  /** The largest action index the chunks can hold (0xff until a larger one comes). */
  private actionMax = 0xff;
  size = 0;

  /** Records a new state and returns its id. */
  add(parentId: number, actionIndex: number): number {
    const id = this.size;
    if ((id & parentChunkMask) === 0) {
      if (this.packed) {
        this.packed.push(new Uint32Array(parentChunkEntries));
      } else {
        this.parents.push(new Int32Array(parentChunkEntries));
        this.actions.push(actionArray(this.actionMax));
      }
    }
    this.size++;
    this.store(id, parentId, actionIndex);
    return id;
  }

  parentOf(id: number): number {
    if (!(id >= 0 && id < this.size)) assert.fail(`no state with id ${id}`);
    const chunk = id >>> parentChunkBits;
    const offset = id & parentChunkMask;
    if (this.packed) return id - (this.packed[chunk]![offset]! >>> packedActionBits);
    return this.parents[chunk]![offset]!;
  }

  /** Gives state `id` another parent: a lesser path to it found within its level. */
  relink(id: number, parentId: number, actionIndex: number): void {
    if (!(id >= 0 && id < this.size)) assert.fail(`no state with id ${id}`);
    assert.ok(parentId >= noParent, 'a parent id or noParent');
    this.store(id, parentId, actionIndex);
  }

  actionOf(id: number): number {
    if (!(id >= 0 && id < this.size)) assert.fail(`no state with id ${id}`);
    const chunk = id >>> parentChunkBits;
    const offset = id & parentChunkMask;
    if (this.packed) return this.packed[chunk]![offset]! & packedActionMask;
    return this.actions[chunk]![offset]!;
  }

  private store(id: number, parentId: number, actionIndex: number): void {
    const chunk = id >>> parentChunkBits;
    const offset = id & parentChunkMask;
    if (this.packed) {
      const distance = id - parentId;
      const fits = distance >= 1 && distance < packedDistanceLimit &&
        actionIndex >= 0 && actionIndex <= packedActionMask;
      if (fits) {
        this.packed[chunk]![offset] = distance * (packedActionMask + 1) + actionIndex;
        return;
      }
      this.unpack();
    }
    if (!(actionIndex >= 0 && actionIndex <= this.actionMax)) this.widen(actionIndex);
    this.parents[chunk]![offset] = parentId;
    this.actions[chunk]![offset] = actionIndex;
  }

  /** Turns the packed chunks into parent ids and one-byte action indexes. */
  private unpack(): void {
    const packed = this.packed!;
    this.packed = undefined;
    for (let chunk = 0; chunk < packed.length; chunk++) {
      const words = packed[chunk]!;
      const parents = new Int32Array(parentChunkEntries);
      const actions = new Uint8Array(parentChunkEntries);
      const first = chunk << parentChunkBits;
      for (let offset = 0; offset < parentChunkEntries; offset++) {
        parents[offset] = first + offset - (words[offset]! >>> packedActionBits);
        actions[offset] = words[offset]! & packedActionMask;
      }
      this.parents.push(parents);
      this.actions.push(actions);
    }
  }

  /** The path from an initial state to state `id`, optionally one action further. */
  pathTo(id: number, extraActionIndex?: number): Path {
    const actionIndexes: number[] = extraActionIndex === undefined ? [] : [extraActionIndex];
    let current = id;
    // Each step moves to a strictly smaller id, so this ends within `size` steps.
    for (let steps = 0; this.parentOf(current) !== noParent; steps++) {
      assert.ok(steps < this.size, 'cycle in the parent table');
      if (this.parentOf(current) === unknownParent) return unknownPath;
      actionIndexes.push(this.actionOf(current));
      current = this.parentOf(current);
    }
    actionIndexes.reverse();
    return { initialIndex: this.actionOf(current), actionIndexes };
  }

  get bytes(): number {
    if (this.packed) return this.packed.length * 4 * parentChunkEntries;
    const actionBytes = this.actions[0]?.BYTES_PER_ELEMENT ?? 0;
    return this.parents.length * (4 + actionBytes) * parentChunkEntries;
  }

  /** Copies every chunk's action indexes into arrays wide enough for `actionIndex`. */
  private widen(actionIndex: number): void {
    assert.ok(Number.isInteger(actionIndex) && actionIndex >= 0 && actionIndex <= 0x7fffffff,
      `action index ${actionIndex}`);
    this.actionMax = actionCapacity(actionIndex);
    for (let chunk = 0; chunk < this.actions.length; chunk++) {
      const wider = actionArray(this.actionMax);
      wider.set(this.actions[chunk]!);
      this.actions[chunk] = wider;
    }
  }
}

/**
 * A FIFO (or, with `popEntry`, a LIFO) of (state id, encoded state) entries in one buffer.
 * Layout of an entry: [length, id, words..., length]; the length at both ends lets either
 * end find an entry's start.
 */
export class StateQueue {
  private words: Int32Array;
  private end = 0;
  private head = 0;
  count = 0;

  /** `shared`: the buffer is shared memory, so other workers can read entries (work stealing). */
  constructor(private readonly shared = false) {
    this.words = this.allocate(1 << 12);
  }

  /** The words entries live in; valid until the next push (which may grow the buffer). */
  get buffer(): Int32Array {
    return this.words;
  }

  push(id: number, encoded: WordWriter): void {
    this.pushWords(id, encoded.words, 0, encoded.length);
  }

  /** Appends an entry whose encoded state is source[start, end); returns where it starts. */
  pushWords(id: number, source: Int32Array, start: number, end: number): number {
    const length = end - start;
    const offset = this.end;
    const needed = offset + length + 3;
    if (needed > this.words.length) this.grow(needed);
    const words = this.words;
    words[offset] = length;
    words[offset + 1] = id;
    let target = offset + 2;
    for (let index = start; index < end; index++) words[target++] = source[index]!;
    words[offset + 2 + length] = length;
    this.end += length + 3;
    this.count++;
    return offset;
  }

  /**
   * Replaces the encoded state of the entry at `offset` (same id): in place when the length
   * is the same, else the old entry is marked dead (id `deadEntry`) and a new one appended.
   * Returns where the entry now starts.
   */
  replaceWords(offset: number, source: Int32Array, start: number, end: number): number {
    const length = end - start;
    const words = this.words;
    const id = words[offset + 1]!;
    assert.ok(id !== deadEntry, 'replacing a dead entry');
    if (words[offset] === length) {
      let target = offset + 2;
      for (let index = start; index < end; index++) words[target++] = source[index]!;
      return offset;
    }
    words[offset + 1] = deadEntry;
    return this.pushWords(id, source, start, end);
  }

  /** Removes the oldest entry into `entry` (its words stay valid until the next push). */
  shiftEntry(entry: QueueEntry): void {
    assert.ok(this.count > 0, 'shift from an empty queue');
    const length = this.words[this.head]!;
    entry.words = this.words;
    entry.id = this.words[this.head + 1]!;
    entry.start = this.head + 2;
    entry.end = entry.start + length;
    this.head = entry.end + 1;
    this.count--;
  }

  /** Removes the newest entry into `entry` (depth-first order). */
  popEntry(entry: QueueEntry): void {
    assert.ok(this.count > 0, 'pop from an empty queue');
    const length = this.words[this.end - 1]!;
    entry.words = this.words;
    entry.end = this.end - 1;
    entry.start = entry.end - length;
    entry.id = this.words[entry.start - 1]!;
    this.end = entry.start - 2;
    this.count--;
  }

  /** The entries not yet removed, in their layout ([length, id, words..., length] each). */
  entries(): Int32Array {
    return this.words.subarray(this.head, this.end);
  }

  /** Empties the queue, keeping its buffer. */
  clear(): void {
    this.head = 0;
    this.end = 0;
    this.count = 0;
  }

  get bytes(): number {
    return this.words.byteLength;
  }

  private grow(minimumWords: number): void {
    let capacity = this.words.length * 2;
    while (capacity < minimumWords) capacity *= 2;
    const words = this.allocate(capacity);
    words.set(this.words.subarray(0, this.end));
    this.words = words;
  }

  private allocate(capacityWords: number): Int32Array {
    return this.shared
      ? new Int32Array(new SharedArrayBuffer(capacityWords * 4))
      : new Int32Array(capacityWords);
  }
}

/** Where a removed entry lies: words[start, end) of `words`, valid until the next push. */
export interface QueueEntry {
  words: Int32Array;
  id: number;
  start: number;
  end: number;
}

export function emptyQueueEntry(): QueueEntry {
  return { words: new Int32Array(0), id: 0, start: 0, end: 0 };
}
