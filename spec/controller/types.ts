/**
 * The shard controller's data (MIT 6.5840 shardctrler): numbered configurations, each
 * assigning every shard to a group id (gid 0: unassigned) and naming each group's servers.
 * Configuration 0 assigns no shard. A configuration change N -> N+1 moves shards, each under
 * a migration identity, which the controller records as its intent before any step. Plain
 * data only: `groups` keys are gids, which JavaScript keeps in ascending numeric order, so
 * equal configurations serialise equally.
 */

/** A replica group id; 0 means "no group". */
export type Gid = number;

export const unassignedGid: Gid = 0;

export interface Config {
  readonly num: number;
  /** shards[s] is the gid serving shard s. */
  readonly shards: readonly Gid[];
  /** gid -> that group's server names, in order. */
  readonly groups: Readonly<Record<number, readonly string[]>>;
}

/** A controller operation's outcome: a value, or a one-line reason it was refused. */
export type ControllerResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string };

/**
 * A migration identity (DESIGN §3): shard `shard` moves from `src` to `dst` in the change to
 * configuration `epoch` (= N + 1). Every freeze, install and delete carries one. src is the
 * group that holds the data: the shard's last owner, even when configuration N left it
 * unassigned (it stayed there, frozen); 0 when no group ever held it. dst 0 leaves the shard
 * unassigned: src freezes it and keeps it.
 */
export interface Identity {
  readonly shard: number;
  readonly epoch: number;
  readonly src: Gid;
  readonly dst: Gid;
}

/** The persisted intent of a configuration change: one identity per moved shard. */
export interface Intent {
  readonly num: number;
  /** Sorted by shard. */
  readonly moves: readonly Identity[];
}
