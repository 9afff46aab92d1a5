/**
 * `shardkv simulate --bug NAME`: a catalog name (`shardkv bugs`) becomes the switch the
 * running servers read (ServerBugs). Raft's switches are camelCase fields under their
 * kebab-case catalog names (spec/raft/index.ts raftBugSwitches); the controller's and the
 * migration's records are keyed by the catalog names themselves.
 */
import { noControllerBugs, type ControllerBugs } from '../../spec/controller/bugs.js';
import { noMigrationBugs, type MigrationBugs } from '../../spec/migration/bugs.js';
import { raftBugSwitches } from '../../models/raft/index.js';
import type { ServerBugs } from '../../impl/node/api.js';

const controllerBugNames = Object.keys(noControllerBugs) as (keyof ControllerBugs)[];
const migrationBugNames = Object.keys(noMigrationBugs) as (keyof MigrationBugs)[];

/** Every bug name the simulator accepts, in catalog order per layer. */
export const simulatorBugNames: readonly string[] = [
  ...Object.keys(raftBugSwitches),
  ...controllerBugNames,
  ...migrationBugNames,
];

/** The servers' switches for a catalog bug; undefined for a name the catalog lacks. */
export function serverBugsFor(name: string): ServerBugs | undefined {
  const raft = raftBugSwitches[name];
  if (raft !== undefined) return { raft };
  if ((controllerBugNames as string[]).includes(name)) return { controller: { [name]: true } };
  if ((migrationBugNames as string[]).includes(name)) return { migration: { [name]: true } };
  return undefined;
}
