/**
 * The `migration` model's known bugs (DESIGN §3's catalog, issue 10), as one record of
 * switches, all off by default. Each switch is consulted at exactly one place, the one its
 * comment names; the group state machine and the driver take the record, the model sets it
 * from `--bug`. (skip-config is a planning bug of the controller: it lives in ControllerBugs.)
 */

export interface MigrationBugs {
  /** group freezeShard: src hands out its image but keeps serving the shard. */
  readonly 'skip-freeze': boolean;
  /** driver recoverShard: a recovering driver unfreezes src while current still names it. */
  readonly 'unfreeze-on-recovery': boolean;
  /** group installShard: a repeated install replaces what dst has served since. */
  readonly 'reinstall-overwrites': boolean;
  /** driver driverSends: deletes at src with a receipt it made up from the image. */
  readonly 'delete-before-receipt': boolean;
  /** group identityProblem: a message of an older epoch is acted on. */
  readonly 'accept-stale-epoch': boolean;
  /** group imageOf: the image carries the KV data but not the dedup table. */
  readonly 'dedup-not-migrated': boolean;
  /** group applyClientRequest: an expired client is served instead of refused. */
  readonly 'expiry-forgets-session': boolean;
  /** group applyClientRequest: a frozen copy answers Gets from its fixed data. */
  readonly 'frozen-source-serves-reads': boolean;
  /** group installShard: a repeated install with another image replaces dst's shard. */
  readonly 'install-accepts-different-image': boolean;
  /** group applyClientRequest: a (client, seq) retry with another request gets the first result. */
  readonly 'dedup-ignores-digest': boolean;
  /** group freezeShard: a source that deleted the shard answers with an empty image. */
  readonly 'migrate-returns-empty-after-gc': boolean;
  /** driver resumeFrom: recovery asks src for its image even when dst holds the receipt. */
  readonly 'recovery-needs-source-after-delete': boolean;
}

export type MigrationBugName = keyof MigrationBugs | 'skip-config';

export const noMigrationBugs: MigrationBugs = {
  'skip-freeze': false,
  'unfreeze-on-recovery': false,
  'reinstall-overwrites': false,
  'delete-before-receipt': false,
  'accept-stale-epoch': false,
  'dedup-not-migrated': false,
  'expiry-forgets-session': false,
  'frozen-source-serves-reads': false,
  'install-accepts-different-image': false,
  'dedup-ignores-digest': false,
  'migrate-returns-empty-after-gc': false,
  'recovery-needs-source-after-delete': false,
};

/**
 * The switches a catalog entry is checked on top of. No correct step asks a source for a
 * shard it deleted (the driver deletes only with dst's receipt, and then never asks src
 * again), so the group's answer to that question only matters behind the driver that asks:
 * the seed article's chain of a recovery that asks the source, a source that answers empty
 * after its garbage collection, and a destination that installs what it gets.
 */
export const bugContext: Partial<Record<MigrationBugName, readonly (keyof MigrationBugs)[]>> = {
  'migrate-returns-empty-after-gc': ['recovery-needs-source-after-delete'],
  'install-accepts-different-image': [
    'recovery-needs-source-after-delete',
    'migrate-returns-empty-after-gc',
  ],
};

/** The catalog's order (`shardkv bugs`). */
export const migrationBugNames: readonly MigrationBugName[] = [
  'skip-freeze',
  'unfreeze-on-recovery',
  'reinstall-overwrites',
  'delete-before-receipt',
  'accept-stale-epoch',
  'skip-config',
  'dedup-not-migrated',
  'expiry-forgets-session',
  'frozen-source-serves-reads',
  'install-accepts-different-image',
  'dedup-ignores-digest',
  'migrate-returns-empty-after-gc',
  'recovery-needs-source-after-delete',
];
