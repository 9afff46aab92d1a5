/**
 * DIR/cluster.json: what every node process and every command reads to find the cluster. It
 * names the nodes (CONTRACT: `ctl-0..C-1`, `g<gid>-0..N-1`, gids 100, 101, ...), gives each a
 * host:port (so nodes could live on different machines), and holds the settings chosen at
 * `cluster start`. Written once, atomically, and never changed.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { ClusterLayout } from '../node/api.js';
import { ClusterInputError } from './errors.js';
import type { ClusterPaths } from './paths.js';

export const clusterFileVersion = 1;
export const firstGid = 100;

export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

export interface ClusterSettings {
  /** CONTRACT --max-raft-state; null: never snapshot. */
  readonly maxRaftStateBytes: number | null;
  readonly maxKeyBytes: number;
  readonly maxValueBytes: number;
  /** Record every actor step under DIR/traces (`cluster start --trace`). */
  readonly trace: boolean;
  /**
   * The nodes' election timeout range in ms (no CLI flag: tests on a loaded machine widen
   * it); absent: the shell's default (impl/node/tuning.ts).
   */
  readonly electionTimeoutMs?: readonly [number, number];
}

export interface ClusterFile {
  readonly version: number;
  readonly shardCount: number;
  readonly controllers: readonly string[];
  /** gid (as a string, JSON's key) -> its servers in order. */
  readonly groups: Readonly<Record<string, readonly string[]>>;
  readonly addresses: Readonly<Record<string, NodeAddress>>;
  readonly settings: ClusterSettings;
}

export interface ClusterShape {
  readonly groups: number;
  readonly servers: number;
  readonly controllers: number;
  readonly shards: number;
}

/** Node names in CONTRACT's order: controllers, then each group's servers. */
export function nodeNamesOf(shape: ClusterShape): {
  controllers: string[];
  groups: Record<string, string[]>;
} {
  const controllers = Array.from({ length: shape.controllers }, (_, index) => `ctl-${index}`);
  const groups: Record<string, string[]> = {};
  for (let group = 0; group < shape.groups; group++) {
    const gid = firstGid + group;
    groups[gid] = Array.from({ length: shape.servers }, (_, index) => `g${gid}-${index}`);
  }
  return { controllers, groups };
}

export function allNodes(file: ClusterFile): string[] {
  return [...file.controllers, ...Object.values(file.groups).flat()];
}

export function layoutOf(file: ClusterFile): ClusterLayout {
  const groups: Record<number, readonly string[]> = {};
  for (const [gid, servers] of Object.entries(file.groups)) groups[Number(gid)] = servers;
  return { shardCount: file.shardCount, controllers: file.controllers, groups };
}

export function writeClusterFile(paths: ClusterPaths, file: ClusterFile): void {
  const temporary = `${paths.clusterFile}.tmp`;
  writeFileSync(temporary, JSON.stringify(file, null, 2) + '\n');
  renameSync(temporary, paths.clusterFile);
}

/** The cluster in DIR; a ClusterInputError (exit 2) when DIR holds none. */
export function readClusterFile(paths: ClusterPaths): ClusterFile {
  let text: string;
  try {
    text = readFileSync(paths.clusterFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ClusterInputError(`${paths.root} holds no cluster`);
    throw new ClusterInputError(`cannot read ${paths.clusterFile}: ${code}`);
  }
  let file: ClusterFile;
  try {
    file = JSON.parse(text) as ClusterFile;
  } catch {
    throw new ClusterInputError(`${paths.clusterFile} is not JSON`);
  }
  const problem = validate(file);
  if (problem !== null) throw new ClusterInputError(`${paths.clusterFile}: ${problem}`);
  return file;
}

function validate(file: ClusterFile): string | null {
  if (typeof file !== 'object' || file === null) return 'not an object';
  if (file.version !== clusterFileVersion) return `unsupported version ${file.version}`;
  if (!Number.isInteger(file.shardCount) || file.shardCount < 1) return 'bad shardCount';
  if (!Array.isArray(file.controllers) || typeof file.groups !== 'object') return 'bad nodes';
  if (typeof file.settings !== 'object' || file.settings === null) return 'no settings';
  const range = file.settings.electionTimeoutMs;
  if (range !== undefined && !(Array.isArray(range) && range.length === 2 &&
    range.every((ms) => Number.isInteger(ms) && ms > 0))) return 'bad electionTimeoutMs';
  for (const name of allNodes(file)) {
    const address = file.addresses?.[name];
    if (typeof address?.host !== 'string' || !Number.isInteger(address.port)) {
      return `no address for ${name}`;
    }
  }
  return null;
}
