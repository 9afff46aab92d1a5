/**
 * The disk mode's parent links (disk-bfs.ts): one file a BFS level, two words a state in the
 * order its states were found (the parent's index in the level before, or -1 for an initial
 * state; then the action index, or the initial state's index). Written as the level's states
 * are decided and read back only for a counterexample, by one pass a level from the
 * violation back to an initial state. A state's id is its place in BFS order: the states of
 * the levels before it, then its index in its level.
 */
import { ok as assert } from 'node:assert';
import type { Path } from './search.js';
import { noParent } from './state-store.js';
import { holds, type Directory } from './storage.js';
import { WordFileReader, WordFileWriter } from './word-file.js';

export const parentsFileName = (level: number): string => `disk-parents-${level}.bin`;

export class DiskParents {
  /** Per level begun, the id of its first state; then the id the next state gets. */
  readonly levelStarts: number[];
  private writer: WordFileWriter | undefined;

  /** `levelStarts` of levels already written (a resumed search's), else none. */
  constructor(
    private readonly directory: Directory,
    private readonly bufferWords: number,
    levelStarts: readonly number[] = [0],
  ) {
    this.levelStarts = [...levelStarts];
  }

  /** Levels whose files are complete. */
  get levels(): number {
    return this.levelStarts.length - 1 - (this.writer ? 1 : 0);
  }

  /** Starts the next level's file. */
  beginLevel(): void {
    assert(this.writer === undefined, 'one level at a time');
    const level = this.levelStarts.length - 1;
    this.writer = new WordFileWriter(this.directory, parentsFileName(level), this.bufferWords);
    this.levelStarts.push(this.levelStarts[level]!);
  }

  /** The level's next state: its parent's index in the level before (-1: none), its action. */
  push(parentIndex: number, actionIndex: number): void {
    this.writer!.push(parentIndex);
    this.writer!.push(actionIndex);
    this.levelStarts[this.levelStarts.length - 1]!++;
  }

  /** A link's parent word for the state `id` of the level being expanded, or noParent. */
  parentIndex(id: number): number {
    if (id === noParent) return -1;
    const index = id - this.levelStarts[this.levelStarts.length - 3]!;
    assert(index >= 0 && index <= 0x7fffffff, 'a level of at most 2^31 states');
    return index;
  }

  endLevel(): void {
    const writer = this.writer;
    // Forgotten before it is closed: after an error, `remove` must not close it again.
    this.writer = undefined;
    writer?.close();
  }

  /** The path to a state of a complete level (then `extraActionIndex`), or to an initial one. */
  pathTo(id: number, extraActionIndex?: number): Path {
    const actionIndexes: number[] = extraActionIndex === undefined ? [] : [extraActionIndex];
    if (id === noParent) return { initialIndex: extraActionIndex!, actionIndexes: [] };
    let level = this.levelStarts.findIndex((start, next) =>
      next < this.levels && id >= start && id < this.levelStarts[next + 1]!);
    assert(level >= 0, `state ${id} is in a complete level`);
    let index = id - this.levelStarts[level]!;
    for (; ; level--) {
      const [parent, action] = this.link(level, index);
      if (parent === -1) {
        actionIndexes.reverse();
        return { initialIndex: action, actionIndexes };
      }
      actionIndexes.push(action);
      index = parent;
    }
  }

  /**
   * Removes the files of the levels begun and of any after them (a killed run's), the last
   * first: a crash on the way leaves levels 0 to some level, which the next search rewrites.
   */
  remove(): void {
    this.endLevel();
    let levels = this.levelStarts.length - 1;
    while (holds(this.directory, parentsFileName(levels))) levels++;
    for (let level = levels - 1; level >= 0; level--) {
      this.directory.remove(parentsFileName(level));
    }
  }

  /** The link of the level's state `index`, by one pass over the level's file. */
  private link(level: number, index: number): [number, number] {
    const name = parentsFileName(level);
    const reader = new WordFileReader(this.directory, name, this.bufferWords);
    try {
      let skipped = 0;
      while (reader.ensure(2)) {
        const at = reader.position + index * 2 - skipped;
        if (at + 2 <= reader.end) return [reader.words[at]!, reader.words[at + 1]!];
        // Whole links only, so that the words left start a link.
        const whole = (reader.end - reader.position) & ~1;
        skipped += whole;
        reader.position += whole;
      }
      throw new Error(`${this.directory.describe(name)} ended before state ${index}`);
    } finally {
      reader.close();
    }
  }
}
