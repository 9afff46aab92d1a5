/** `check --disk DIR [--memory SIZE]`: flags to the disk mode's options (checker/disk-bfs.ts). */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DiskOptions } from '../checker/disk-bfs.js';
import { minimumMemoryBytes } from '../checker/disk-fingerprint-set.js';
import { UsageError } from '../checker/params.js';
import type { ParsedArgs } from './args.js';
import { openDirectory } from './file-directory.js';

const defaultMemory = '512m';
const unitBytes: Readonly<Record<string, number>> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };

/** The other options a disk search refuses for now, each with why. */
interface Refusal {
  readonly given: (args: ParsedArgs) => boolean;
  readonly why: string;
}

const refusals: readonly Refusal[] = [
  {
    given: (args) => (args.values['strategy'] ?? 'bfs') !== 'bfs',
    why: '--disk needs --strategy bfs',
  },
  { given: (args) => args.booleans.has('coverage'), why: '--coverage does not run with --disk' },
  {
    given: (args) => [args.values['checkpoint'], args.values['resume']].some((path) =>
      path !== undefined && resolve(path) !== resolve(args.values['disk']!)),
    why: '--checkpoint and --resume with --disk DIR name DIR: its files are the checkpoint',
  },
  { given: (args) => args.values['max-states'] !== undefined,
    why: '--max-states does not run with --disk (use --time-limit)' },
  { given: (args) => args.booleans.has('continue'), why: '--continue does not run with --disk' },
];

export function diskOptions(args: ParsedArgs): DiskOptions | undefined {
  const directory = args.values['disk'];
  const memory = args.values['memory'];
  if (directory === undefined) {
    if (memory !== undefined) throw new UsageError('--memory needs --disk DIR');
    return undefined;
  }
  for (const refusal of refusals) if (refusal.given(args)) throw new UsageError(refusal.why);
  const memoryBytes = parseMemory(memory ?? defaultMemory);
  writableDirectory(directory);
  return { directory: openDirectory(directory), memoryBytes };
}

/** Creates DIR if needed; one that cannot be written is a usage error, before the search. */
function writableDirectory(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.W_OK);
  } catch (error) {
    throw new UsageError(`--disk ${path}: ${(error as Error).message}`);
  }
}

/** A size such as 512m: an integer and an optional unit k, m or g (powers of 1024). */
export function parseMemory(text: string): number {
  const match = /^(\d+)([kmg]?)$/i.exec(text);
  const bytes = match ? Number(match[1]) * unitBytes[match[2]!.toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(bytes)) {
    throw new UsageError(`--memory expects a size such as 512m (units k, m, g), got '${text}'`);
  }
  if (bytes < minimumMemoryBytes) {
    throw new UsageError(`--memory must be at least 64k, got '${text}'`);
  }
  return bytes;
}
