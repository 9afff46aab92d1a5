/**
 * The shard controller's data (MIT 6.5840 shardctrler): numbered configurations, each
 * assigning every shard to a group id (gid 0: unassigned) and naming each group's servers.
 * Configuration 0 assigns no shard. Plain data only: `groups` keys are gids, which JavaScript
 * keeps in ascending numeric order, so equal configurations serialise equally.
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
