/**
 * The `migration` model's known bugs (DESIGN §3's catalog, issue 10), one entry each, in
 * `shardkv bugs` order: the group's and the driver's, and the controller's skip-config, which
 * only this model's driver reveals (its entry and its switch are the controller's: bugs.ts
 * there). `MigrationBugs` holds the group's and the driver's switches, all off unless named,
 * each consulted at exactly the place its entry's comment names; the group state machine and
 * the driver take the record, the model sets it from `--bug`.
 */
import { assertCatalog, bugNames, type BugSwitches, type KnownBug } from '../bug-catalog.js';
import { controllerBugs, type ControllerBugName } from '../controller/bugs.js';

/** The controller's bugs that the migration model checks. */
const controllerBugsShownByTheDriver = controllerBugs.filter(
  (bug): bug is Extract<(typeof controllerBugs)[number], { model: 'migration' }> =>
    'model' in bug && bug.model === 'migration',
);

export const migrationBugs = [
  {
    // group freezeShard: src hands out its image but keeps serving the shard.
    name: 'skip-freeze',
    description: 'src hands out its image for install at dst without freezing the shard',
    breaks: ['AtMostOneServer', 'NoLostWrite', 'ExactlyOnce', 'ReadsCurrent'],
  },
  {
    // driver recoverShard: a recovering driver unfreezes src while current still names it.
    name: 'unfreeze-on-recovery',
    description: 'a recovering driver unfreezes src because current still names it',
    breaks: ['AtMostOneServer', 'NoLostWrite', 'ExactlyOnce', 'ReadsCurrent'],
  },
  {
    // group installShard: a repeated install replaces what dst has served since.
    name: 'reinstall-overwrites',
    description: 'a repeated Install overwrites what dst has served since the first one',
    breaks: ['NoLostWrite'],
    bounds: { maxDuplicates: 1 },
  },
  {
    // driver driverSends: deletes at src with a receipt it made up from the image.
    name: 'delete-before-receipt',
    description:
      'the driver deletes at src as soon as it holds the image, with a receipt it made up',
    breaks: ['NoLostWrite', 'UnaffectedServed'],
  },
  {
    // group identityProblem: a message of an older epoch is acted on.
    name: 'accept-stale-epoch',
    description: 'groups act on freeze/install/delete messages of an older epoch',
    breaks: ['GarbageBound', 'UnaffectedServed'],
    bounds: { clients: 1, ops: 1, maxDuplicates: 1 },
  },
  ...controllerBugsShownByTheDriver,
  {
    // group imageOf: the image carries the KV data but not the dedup table.
    name: 'dedup-not-migrated',
    description: 'the image carries the KV data but not the dedup table',
    breaks: ['ExactlyOnce'],
  },
  {
    // group applyClientRequest: an expired client is served instead of refused.
    name: 'expiry-forgets-session',
    description:
      "session expiry drops a client's dedup records but keeps serving the client, so a late " +
      'duplicate of its last request is applied again',
    breaks: ['ExactlyOnce'],
    bounds: { maxExpiries: 1 },
  },
  {
    // group applyClientRequest: a frozen copy answers Gets from its fixed data.
    name: 'frozen-source-serves-reads',
    description: 'a frozen source keeps answering Gets from its fixed copy',
    // Not ExactlyOnce: a Get takes no effect, so a second answer to it is no second effect.
    breaks: ['OnlyServerAnswers', 'ReadsCurrent'],
  },
  {
    // group installShard: a repeated install with another image replaces dst's shard. No
    // correct driver asks src again once it deleted, so this is checked behind the chain of
    // the seed article: a recovery that asks the source, a source that answers empty after
    // its garbage collection, and a destination that installs what it gets.
    name: 'install-accepts-different-image',
    description:
      'dst, having installed the shard for an identity, installs another image for it ' +
      '(checked behind recovery-needs-source-after-delete and migrate-returns-empty-after-gc)',
    // OneImagePerIdentity fails in its context already; the other three only with its switch.
    breaks: ['OneImagePerIdentity', 'NoLostWrite', 'ExactlyOnce', 'ReadsCurrent'],
    context: ['recovery-needs-source-after-delete', 'migrate-returns-empty-after-gc'],
  },
  {
    // group applyClientRequest: a (client, seq) retry with another request gets the first
    // result.
    name: 'dedup-ignores-digest',
    description:
      'a request reusing a (client, seq) with another request gets the first result ' +
      'instead of identity-conflict',
    breaks: ['ExactlyOnce'],
    bounds: { maxReuses: 1 },
  },
  {
    // group applyClientRequest: one dedup record per client for all the group's shards.
    name: 'one-seq-across-shards',
    description:
      'a group keeps one dedup record per client, its highest seq, for all its shards: the ' +
      "record moves to the shard of the client's latest write and leaves with it (frozen, " +
      'moved), so a late duplicate of an earlier write to another shard is applied again',
    breaks: ['ExactlyOnce'],
    // A get leaves no record, so the record moves only with a write to another shard: client
    // 1's put on shard 0, then its append on shard 1 (client 0's second request is a get).
    bounds: { maxReconfigs: 1, maxCrashes: 0, maxDuplicates: 1 },
  },
  {
    // group freezeShard: a source that deleted the shard answers with an empty image. Only a
    // driver that asks a source after its delete gets that answer: checked behind one.
    name: 'migrate-returns-empty-after-gc',
    description:
      'a source asked for a shard it deleted answers with an empty image instead of ' +
      'refusing (checked behind recovery-needs-source-after-delete, the driver that asks)',
    breaks: ['OneImagePerIdentity'],
    context: ['recovery-needs-source-after-delete'],
  },
  {
    // driver resumeFrom: recovery asks src for its image even when dst holds the receipt.
    name: 'recovery-needs-source-after-delete',
    description:
      'a recovering driver asks src for its image even after src deleted the shard: the ' +
      'migration never finishes (found by liveness)',
    breaks: ['RecordedConfigsPublished'],
  },
] as const satisfies readonly KnownBug[];
assertCatalog(migrationBugs, migrationBugs);

/** A bug the migration model checks (`--bug`). */
export type MigrationBugName = (typeof migrationBugs)[number]['name'];
export const migrationBugNames = bugNames(migrationBugs);

/** The group's and the driver's switches: the catalog's names but the controller's. */
export type MigrationSwitchName = Exclude<MigrationBugName, ControllerBugName>;
export const migrationSwitchNames: readonly MigrationSwitchName[] = migrationBugs
  .map((bug) => bug.name)
  .filter((name): name is MigrationSwitchName =>
    !(controllerBugs as readonly KnownBug[]).some((bug) => bug.name === name));

/** The switches the group state machine and the driver read. */
export type MigrationBugs = BugSwitches<MigrationSwitchName>;

export const noMigrationBugs: MigrationBugs = {};
