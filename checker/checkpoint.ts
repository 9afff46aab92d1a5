/**
 * Checkpoints of a BFS between levels (TLC's -checkpoint and -recover): the visited
 * fingerprints, the frontier of the next level and the counts so far, in one file written
 * beside its final name and renamed over it, so a kill -9 at any moment leaves the last
 * complete checkpoint. Parent links are not kept: a resumed search that meets a violation
 * rebuilds its counterexample by one-thread BFS from the start (as the parallel search does),
 * so counts, verdict and trace equal an uninterrupted run's.
 *
 * The file lives in a Directory the CLI supplies (storage.ts). File layout: a 32-bit header
 * length, the header as JSON, zero padding to 4 bytes, the fingerprints (high, low per
 * state), the frontier's entries ([length, 0, words..., length]).
 */
import { diskManifestName } from './disk-checkpoint.js';
import { nonZeroWord } from './fingerprint.js';
import { UsageError } from './params.js';
import { byReference, holds, reopened, type ByReference, type Directory } from './storage.js';

export interface CheckpointOptions {
  readonly directory: Directory;
  /** Seconds between checkpoints; 0 writes one at every level. */
  readonly everySeconds: number;
  /** Start from the directory's checkpoint (a fresh search when it holds none). */
  readonly resume: boolean;
  /** What was checked (model, bounds, bug, options): a checkpoint of another is refused. */
  readonly identity: string;
}

export interface Checkpoint {
  readonly identity: string;
  /** The depth of the frontier's states: the next level expands them. */
  readonly level: number;
  readonly statesGenerated: number;
  readonly depth: number;
  /** Bit i: `sometimes` property i held in some state so far. */
  readonly sometimesMask: number;
  readonly visited: Int32Array;
  readonly frontier: Int32Array;
  readonly frontierCount: number;
}

export const checkpointFileName = 'checkpoint.bin';
const fileName = checkpointFileName;
const formatVersion = 1;

export function writeCheckpoint(directory: Directory, checkpoint: Checkpoint): void {
  const { visited, frontier, ...counts } = checkpoint;
  const header = Buffer.from(JSON.stringify({ version: formatVersion, ...counts,
    visitedWords: visited.length, frontierWords: frontier.length }));
  const padding = (4 - ((4 + header.length) % 4)) % 4;
  const prefix = Buffer.alloc(4 + header.length + padding);
  prefix.writeUInt32LE(header.length, 0);
  header.copy(prefix, 4);
  directory.replace(fileName, [prefix,
    new Uint8Array(visited.buffer, visited.byteOffset, visited.byteLength),
    new Uint8Array(frontier.buffer, frontier.byteOffset, frontier.byteLength)]);
}

/** The directory's checkpoint, or undefined when it has none; refuses another search's. */
export function readCheckpoint(options: CheckpointOptions): Checkpoint | undefined {
  const path = options.directory.describe(fileName);
  const read = options.directory.read(fileName);
  if (read === undefined) {
    if (holds(options.directory, diskManifestName)) {
      throw new UsageError(`${options.directory.describe(diskManifestName)} is a checkpoint ` +
        'of a search on disk: resume it with --disk and the same DIR');
    }
    return undefined;
  }
  const bytes = Buffer.from(read.buffer, read.byteOffset, read.byteLength);
  const headerLength = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8')) as Omit<
    Checkpoint, 'visited' | 'frontier'> & { version: number; visitedWords: number;
    frontierWords: number };
  if (header.version !== formatVersion) {
    throw new UsageError(`${path}: checkpoint format ${header.version}, expected ${formatVersion}`);
  }
  if (header.identity !== options.identity) {
    throw new UsageError(`${path} is a checkpoint of another check (${header.identity})`);
  }
  let offset = 4 + headerLength + ((4 - ((4 + headerLength) % 4)) % 4);
  const words = (count: number) => {
    const copy = new Int32Array(count);
    copy.set(new Int32Array(bytes.buffer.slice(bytes.byteOffset + offset,
      bytes.byteOffset + offset + count * 4)));
    offset += count * 4;
    return copy;
  };
  // Written before every search stored words through nonZeroWord: one thread kept a zero.
  const visited = words(header.visitedWords).map(nonZeroWord);
  const frontier = words(header.frontierWords);
  return { ...header, visited, frontier };
}

/** The options with the directory by reference, to cross to a worker thread. */
export type CheckpointSetup = ByReference<CheckpointOptions>;

export const checkpointSetup = (options: CheckpointOptions): CheckpointSetup =>
  byReference(options);

/** The options back from a worker thread's setup, the directory reopened. */
export const checkpointFromSetup = (setup: CheckpointSetup): Promise<CheckpointOptions> =>
  reopened(setup);

/** Decides when the next checkpoint is due. */
export class CheckpointClock {
  private last = performance.now();

  constructor(private readonly options: CheckpointOptions) {}

  due(): boolean {
    const now = performance.now();
    if (now - this.last < this.options.everySeconds * 1000) return false;
    this.last = now;
    return true;
  }
}

/** Calls `visit(words, start, end)` for each entry of a frontier in checkpoint layout. */
export function forEachFrontierEntry(
  frontier: Int32Array,
  visit: (words: Int32Array, start: number, end: number) => void,
): void {
  for (let position = 0; position < frontier.length;) {
    const length = frontier[position]!;
    const start = position + 2;
    visit(frontier, start, start + length);
    position = start + length + 1;
  }
}
