/**
 * The replica group's replicated state (DESIGN §3, "The migration protocol"). In the
 * `migration` model a group is one atomic state machine (its Raft is abstracted); in the
 * runtime every replica applies the same commands, in log order, through `applyCommand`.
 *
 * Per shard a group keeps a phase, the migration identity it last took part in, the shard's
 * KV data, its dedup table, the receipt of its last install and the tombstone of its last
 * delete. Everything is plain data: sorted arrays, numbers and strings.
 */
import type { Gid } from '../controller/types.js';

/**
 * The named mutations of DESIGN §3's bug catalog for the `migration` model. They are off by
 * default; each one is a switch that the spec functions consult at exactly one place.
 */
export type MigrationBug =
  | 'skip-freeze'
  | 'unfreeze-on-recovery'
  | 'reinstall-overwrites'
  | 'delete-before-receipt'
  | 'accept-stale-epoch'
  | 'skip-config'
  | 'dedup-not-migrated'
  | 'expiry-forgets-session';

export const migrationBugs: readonly MigrationBug[] = [
  'skip-freeze',
  'unfreeze-on-recovery',
  'reinstall-overwrites',
  'delete-before-receipt',
  'accept-stale-epoch',
  'skip-config',
  'dedup-not-migrated',
  'expiry-forgets-session',
];

/**
 * A migration identity: shard `shard` moves from `src` to `dst` in the change to
 * configuration `epoch` (= N + 1). Every freeze, install and delete carries one, and a group
 * acts on it only if it is not older than what the group has already taken part in.
 */
export interface Identity {
  readonly shard: number;
  readonly epoch: number;
  readonly src: Gid;
  readonly dst: Gid;
}

export interface KvEntry {
  readonly key: string;
  readonly value: string;
}

/**
 * One dedup record: the latest request of one client on one shard (a client has one request
 * outstanding, so earlier sequence numbers can never be retried). `digest` covers the whole
 * request, so the same (client, seq) with another request is detected; `result` is the first
 * result, returned to every retry.
 */
export interface DedupRecord {
  readonly client: number;
  readonly seq: number;
  readonly digest: number;
  readonly result: string;
}

/**
 * What a freeze hands over and an install stores: the shard's fixed KV and dedup table, and
 * the source's session floor, without which dst could not tell an expired client's late
 * duplicate from a new request.
 */
export interface Image {
  readonly kv: readonly KvEntry[];
  readonly dedup: readonly DedupRecord[];
  readonly sessionFloor: number;
}

/** Proof that dst installed the image with `digest` for `identity`. */
export interface Receipt {
  readonly identity: Identity;
  readonly digest: number;
}

export type ShardPhase = 'serving' | 'frozen' | 'absent';

export interface ShardState {
  readonly phase: ShardPhase;
  /** The last migration identity this group took part in for the shard (as src or dst). */
  readonly identity: Identity | null;
  /** Sorted by key; empty unless the phase is serving or frozen (GarbageBound). */
  readonly kv: readonly KvEntry[];
  /** Sorted by client; at most one record per client. */
  readonly dedup: readonly DedupRecord[];
  /** The receipt of this group's last install of the shard. */
  readonly receipt: Receipt | null;
  /** The identity of this group's last delete of the shard. */
  readonly tombstone: Identity | null;
}

export interface GroupState {
  readonly gid: Gid;
  /** shards[s] is the group's record of shard s. */
  readonly shards: readonly ShardState[];
  /**
   * Session expiry (Raft dissertation §6.3): every client whose id is below the floor has an
   * expired session. Its dedup records are gone, so its requests are refused rather than
   * applied again. Client ids are issued in increasing order, so one number bounds it.
   */
  readonly sessionFloor: number;
}

export type ClientOperation = 'get' | 'put' | 'append';

export interface ClientRequest {
  readonly client: number;
  readonly seq: number;
  readonly op: ClientOperation;
  readonly key: string;
  /** The value to put or append; '' for a get. */
  readonly value: string;
}

/** Every command a group applies, in log order. */
export type GroupCommand =
  | { readonly type: 'client'; readonly request: ClientRequest }
  | { readonly type: 'freeze'; readonly identity: Identity }
  | { readonly type: 'install'; readonly identity: Identity; readonly image: Image }
  | { readonly type: 'delete'; readonly identity: Identity; readonly receipt: Receipt | null }
  /** Only a driver with the unfreeze-on-recovery bug sends this (see unfreezeShard). */
  | { readonly type: 'unfreeze'; readonly identity: Identity }
  /** Reads the facts a recovering driver needs; changes nothing. */
  | { readonly type: 'query-shard'; readonly shard: number }
  /**
   * Session expiry decided by the log (Raft dissertation §6.3), never by a local clock: the
   * sessions of every client whose id is below `below` end.
   */
  | { readonly type: 'expire-sessions'; readonly below: number };

/**
 * Expected refusals are results, not assertions. `ErrWrongGroup` keeps the MIT lab's name
 * (clients retry on it); the migration errors say which guard refused.
 */
export type GroupError =
  | 'ErrWrongGroup'
  | 'identity-conflict'
  | 'stale-request'
  | 'session-expired'
  | 'stale-epoch'
  | 'digest-mismatch'
  | 'no-receipt'
  | 'not-frozen'
  | 'not-held'
  | 'already-deleted'
  | 'shard-present';

/** What a recovering driver learns about one shard at one group. */
export interface ShardFacts {
  readonly phase: ShardPhase;
  readonly identity: Identity | null;
  readonly receipt: Receipt | null;
  readonly tombstone: Identity | null;
}

export type GroupResult =
  | { readonly type: 'value'; readonly value: string }
  /** Every migration result names its identity, so a late reply cannot pass for a new one. */
  | { readonly type: 'image'; readonly identity: Identity; readonly image: Image }
  | { readonly type: 'receipt'; readonly receipt: Receipt }
  | { readonly type: 'deleted'; readonly tombstone: Identity }
  | { readonly type: 'unfrozen' }
  | { readonly type: 'facts'; readonly facts: ShardFacts }
  | { readonly type: 'expired'; readonly records: number }
  | { readonly type: 'error'; readonly error: GroupError };

/** A command's outcome; `state` is the very same object when the command changed nothing. */
export interface Applied {
  readonly state: GroupState;
  readonly result: GroupResult;
}

export interface GroupOptions {
  readonly bug?: MigrationBug | undefined;
}
