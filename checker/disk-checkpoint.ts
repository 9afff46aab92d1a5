/**
 * Checkpoints of the disk mode (disk-bfs.ts), between levels. Its sorted visited file, the
 * next level's frontier and every level's parent links are files already, so a checkpoint is
 * a manifest naming them, with the counts. The working visited and frontier files are
 * renamed into one of two slots, used in turn; every file named is fsynced, with the
 * directory, before the manifest is replaced (Directory.replace: written beside, fsynced,
 * renamed, directory fsynced). The previous slot's files are removed only after that, so a
 * kill -9 at any moment leaves the last complete checkpoint. A resumed search reads the
 * slot's files (its merges write working files beside them) and writes each level's parent
 * links again from the checkpoint's level on.
 */
import type { CheckpointOptions } from './checkpoint.js';
import { parentsFileName } from './disk-parents.js';
import { UsageError } from './params.js';
import { holds, type Directory } from './storage.js';

export interface DiskCheckpoint {
  readonly identity: string;
  /** The depth of the frontier's states: the next level expands them. */
  readonly level: number;
  readonly statesGenerated: number;
  readonly depth: number;
  /** Bit i: `sometimes` property i held in some state so far. */
  readonly sometimesMask: number;
  readonly slot: 0 | 1;
  readonly distinctStates: number;
  readonly visitedFile: string;
  readonly frontierFile: string;
  readonly frontierCount: number;
  /** DiskParents.levelStarts: levels 0 to `level` are written. */
  readonly levelStarts: readonly number[];
}

export const diskManifestName = 'disk-checkpoint.json';
const formatVersion = 1;

/** The names a slot's visited and frontier files get. */
export const slotFiles = (slot: 0 | 1) => ({
  visited: `disk-checkpoint-${slot}-visited.bin`,
  frontier: `disk-checkpoint-${slot}-frontier.bin`,
});

/** Makes `checkpoint` the directory's, then drops the files only `previous` named. */
export function writeDiskCheckpoint(
  directory: Directory,
  checkpoint: DiskCheckpoint,
  previous: DiskCheckpoint | undefined,
): void {
  const parents = Array.from({ length: checkpoint.level + 1 }, (_, level) =>
    parentsFileName(level));
  directory.sync([checkpoint.visitedFile, checkpoint.frontierFile, ...parents]);
  directory.replace(diskManifestName,
    [Buffer.from(JSON.stringify({ version: formatVersion, ...checkpoint }))]);
  if (previous === undefined) return;
  for (const name of [previous.visitedFile, previous.frontierFile]) {
    if (name !== checkpoint.visitedFile && name !== checkpoint.frontierFile) {
      directory.remove(name);
    }
  }
}

/** Removes a checkpoint's manifest and the slots' files (a search that finished). */
export function removeDiskCheckpoint(directory: Directory): void {
  directory.remove(diskManifestName);
  for (const slot of [0, 1] as const) {
    for (const name of Object.values(slotFiles(slot))) directory.remove(name);
  }
}

/**
 * The directory's disk checkpoint, or undefined when it has none; refuses another check's,
 * and an in-memory checkpoint (checkpoint.ts), which resumes without --disk.
 */
export function readDiskCheckpoint(
  options: CheckpointOptions,
  memoryCheckpointName: string,
): DiskCheckpoint | undefined {
  const { directory } = options;
  const path = directory.describe(diskManifestName);
  const read = directory.read(diskManifestName);
  if (read === undefined) {
    if (holds(directory, memoryCheckpointName)) {
      throw new UsageError(`${directory.describe(memoryCheckpointName)} is a checkpoint of a ` +
        'search in memory: resume it without --disk');
    }
    return undefined;
  }
  const { version, ...checkpoint } = JSON.parse(Buffer.from(read).toString('utf8')) as
    DiskCheckpoint & { version: number };
  if (version !== formatVersion) {
    throw new UsageError(`${path}: checkpoint format ${version}, expected ${formatVersion}`);
  }
  if (checkpoint.identity !== options.identity) {
    throw new UsageError(`${path} is a checkpoint of another check (${checkpoint.identity})`);
  }
  return checkpoint;
}
