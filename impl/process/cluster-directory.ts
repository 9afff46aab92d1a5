/**
 * Making DIR for `cluster start` and `cluster init`. `mkdirSync(..., { recursive: true })`
 * turns "DIR names a file" into an EEXIST stack and, under /proc, loops forever; here the
 * nearest existing ancestor must be a directory, and each missing level is made once, so
 * every failure is one ClusterInputError (exit 2) naming the path.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ClusterInputError } from './errors.js';

/** Path depth bounds the walk up (a resolved path of N levels has N ancestors). */
const levelsMax = 4096;

export function makeClusterDirectory(root: string): void {
  const missing: string[] = [];
  let path = root;
  for (let level = 0; level < levelsMax; level++) {
    const kind = pathKind(path);
    if (kind === 'directory') break;
    if (kind === 'other') throw new ClusterInputError(`${path} exists and is not a directory`);
    missing.unshift(path);
    const parent = dirname(path);
    if (parent === path) throw new ClusterInputError(`cannot create ${root}: no root`);
    path = parent;
  }
  for (const directory of missing) {
    try {
      mkdirSync(directory);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new ClusterInputError(`cannot create ${directory} (${code})`);
    }
  }
  if (pathKind(root) !== 'directory') throw new ClusterInputError(`cannot create ${root}`);
}

function pathKind(path: string): 'directory' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    throw new ClusterInputError(`cannot use ${path} (${code})`);
  }
}
