/**
 * The `migration` model's known bugs (DESIGN §3's catalog), as one record of switches, all
 * off by default. Each switch is consulted at exactly one place, the one its comment names;
 * the group state machine and the driver take the record, the model sets it from `--bug`.
 * (skip-config is a planning bug of the controller: it lives in ControllerBugs.)
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
];
