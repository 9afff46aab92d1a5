/**
 * `shardkv simulate --bug NAME`: a catalog name (`shardkv bugs`) becomes the switch the
 * running servers read (ServerBugs): Raft's, the controller's, or the group's and the
 * driver's, each record keyed by the catalog's names (spec/<protocol>/bugs.ts).
 */
import { isBugName } from '../../spec/bug-catalog.js';
import { controllerBugNames } from '../../spec/controller/bugs.js';
import { migrationSwitchNames } from '../../spec/migration/bugs.js';
import { raftBugNames } from '../../spec/raft/bugs.js';
import type { ServerBugs } from '../../impl/node/api.js';

/** Every bug name the simulator accepts, in catalog order per layer. */
export const simulatorBugNames: readonly string[] = [
  ...raftBugNames,
  ...controllerBugNames,
  ...migrationSwitchNames,
];

/** The servers' switches for a catalog bug; undefined for a name the catalog lacks. */
export function serverBugsFor(name: string): ServerBugs | undefined {
  if (isBugName(raftBugNames, name)) return { raft: { [name]: true } };
  if (isBugName(controllerBugNames, name)) return { controller: { [name]: true } };
  if (isBugName(migrationSwitchNames, name)) return { migration: { [name]: true } };
  return undefined;
}
