/**
 * The replica group's replicated state (DESIGN §3, "The migration protocol"). In the
 * `migration` model a group is one atomic state machine (its Raft is abstracted); in the
 * runtime every replica applies the same commands, in log order, through `applyGroupCommand`.
 *
 * Per shard a group keeps a phase, the migration identity it last took part in, the shard's
 * KV data, its dedup table, the digest of the image it froze, the receipt of its last install
 * and the tombstone of its last delete. KV data and dedup tables are persistent ordered maps
 * (ordered-map.ts): sorted arrays in the model, B-trees in the runtime; the rest is plain
 * data.
 */
import type { Gid, Identity } from '../controller/types.js';
import type { OrderedMap } from './ordered-map.js';

export type { Identity } from '../controller/types.js';

/**
 * One dedup record: the latest write of one client on one shard (a client has one request
 * outstanding, so earlier sequence numbers can never be retried). `digest` covers the whole
 * request, so the same (client, seq) with another request is detected; `result` is the first
 * result, returned to every retry. A put or append answers only that it applied, so the
 * record never holds a value: its size does not grow with the writes it guards. A get leaves
 * no record (client-requests.ts says why).
 */
export interface DedupRecord {
  readonly client: number;
  readonly seq: number;
  readonly digest: number;
  /** 'ok', or the size policy's refusal: a retry of a refused request is refused too. */
  readonly result: DedupResult;
}

/** What a dedup record answers a retry: the write applied, or was refused as too large. */
export type DedupResult = 'ok' | 'value-too-large';

/**
 * What a freeze hands over and an install stores: the shard's fixed KV and dedup table, and
 * the source's session floor, without which dst could not tell an expired client's late
 * duplicate from a new request.
 */
export interface Image {
  readonly kv: KvMap;
  readonly dedup: DedupMap;
  readonly sessionFloor: number;
  /** imageDigest(kv, dedup), computed once at freeze: install and delete compare it. */
  readonly digest: Digest;
}

/**
 * What binds the parts of one image (image-parts.ts): the frozen image's digest, the source's
 * session floor and how many parts there are. Every part and the install that assembles them
 * carry it, so a part of another image can be told apart.
 */
export interface PartsManifest {
  readonly digest: Digest;
  readonly sessionFloor: number;
  /** At least 2: an image that fits one part travels whole, in its install. */
  readonly count: number;
  /**
   * True for the manifest of a pre-copy base (PrecopyBase): its parts are staged at dst while
   * src still serves, and only an install with the delta src froze makes them an image.
   */
  readonly precopy?: true;
}

/**
 * Pre-copy (image-parts.ts): the shard as src held it when the driver asked, pinned (the maps
 * are persistent, so pinning copies nothing) so that its parts can be fetched and staged at
 * dst while src still serves. The freeze then hands over only what changed since.
 */
export interface PrecopyBase {
  readonly identity: Identity;
  /**
   * The base's name (digest.ts precopyDigest: the identity's, not a hash of the content) and
   * part count, precopy set; its session floor is the group's then.
   */
  readonly manifest: PartsManifest;
  readonly kv: KvMap;
  readonly dedup: DedupMap;
}

/**
 * What a frozen image has that its pre-copy base lacks: the entries and records set since
 * (new or changed), the keys and clients removed since, and the frozen image's own digest and
 * session floor. The base with the delta applied is the frozen image, exactly.
 */
export interface ImageDelta {
  readonly digest: Digest;
  readonly sessionFloor: number;
  readonly kv: KvMap;
  readonly dedup: DedupMap;
  readonly kvRemoved: readonly string[];
  readonly dedupRemoved: readonly number[];
}

/** One part of an image: a run of its KV entries, then of its dedup records, in key order. */
export interface ImagePart {
  readonly kv: KvMap;
  readonly dedup: DedupMap;
}

/**
 * The parts dst staged so far of one image, for one identity: the first `parts` of them,
 * merged into maps (parts stage in order, so what is staged is always a prefix).
 */
export interface StagedImage {
  readonly identity: Identity;
  readonly manifest: PartsManifest;
  readonly parts: number;
  readonly kv: KvMap;
  readonly dedup: DedupMap;
}

/** A 64-bit FNV-1a digest as 16 hexadecimal digits (digest.ts). */
export type Digest = string;

/** A shard's KV data: key -> value. */
export type KvMap = OrderedMap<string, string>;

/** A shard's dedup table: client -> its latest request's record. */
export type DedupMap = OrderedMap<number, DedupRecord>;

/** Proof that dst installed the image with `digest` for `identity`. */
export interface Receipt {
  readonly identity: Identity;
  readonly digest: Digest;
}

export type ShardPhase = 'serving' | 'frozen' | 'absent';

export interface ShardState {
  readonly phase: ShardPhase;
  /** The last migration identity this group took part in for the shard (as src or dst). */
  readonly identity: Identity | null;
  /** Empty unless the phase is serving or frozen (GarbageBound). */
  readonly kv: KvMap;
  /** At most one record per client. */
  readonly dedup: DedupMap;
  /** The digest of the image this record froze, fixed at freeze; null unless frozen. */
  readonly frozenDigest: Digest | null;
  /** The receipt of this group's last install of the shard. */
  readonly receipt: Receipt | null;
  /** The identity of this group's last delete of the shard. */
  readonly tombstone: Identity | null;
  /** The parts of an image staged for an install not yet applied; null when none. */
  readonly staged: StagedImage | null;
  /**
   * At src, while it serves and once frozen until the delete: the pinned pre-copy base (the
   * key is left out when there is none, so records without one print as before).
   */
  readonly precopy?: PrecopyBase;
}

export interface GroupState {
  readonly gid: Gid;
  /** shards[s] is the group's record of shard s. */
  readonly shards: readonly ShardState[];
  /**
   * Session expiry (Raft dissertation §6.3): every client whose id is below the floor has an
   * expired session. Its dedup records are gone, so its requests are refused rather than
   * applied again. Client ids are issued in increasing order (the controller's
   * RegisterClient), so one number bounds it.
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
  /**
   * An image heavier than one part of the group's budget (SizeLimits.imagePartBytes) is
   * answered by its manifest and fetched part by part (fetch-part).
   */
  | { readonly type: 'freeze'; readonly identity: Identity }
  /**
   * Before the freeze, src pins the shard as it is (PrecopyBase) when it is larger than one
   * part, so the driver can copy it while src still serves.
   */
  | { readonly type: 'precopy'; readonly identity: Identity }
  /** Part number `index` of the image src froze under `identity` with `digest`. */
  | {
      readonly type: 'fetch-part';
      readonly identity: Identity;
      readonly digest: Digest;
      readonly index: number;
    }
  /** image null: the shard was never held (src 0), dst starts it empty. */
  | { readonly type: 'install'; readonly identity: Identity; readonly image: Image | null }
  /** Part number `index` of a large image, staged at dst until `install-parts`. */
  | {
      readonly type: 'stage-part';
      readonly identity: Identity;
      readonly manifest: PartsManifest;
      readonly index: number;
      readonly part: ImagePart;
    }
  /**
   * Installs the image whose parts dst staged, as `install` installs a whole one; for a
   * pre-copy base (manifest.precopy), the base with `delta` applied.
   */
  | {
      readonly type: 'install-parts';
      readonly identity: Identity;
      readonly manifest: PartsManifest;
      readonly delta?: ImageDelta;
    }
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
  /** A malformed command (a seq that is not a natural number, a get with a value...). */
  | 'bad-request'
  /** The same (client, seq) with another request, or another identity at the same epoch. */
  | 'identity-conflict'
  | 'stale-request'
  | 'session-expired'
  | 'stale-epoch'
  | 'digest-mismatch'
  | 'no-receipt'
  | 'not-frozen'
  | 'not-held'
  | 'already-deleted'
  | 'shard-present'
  /** An install of parts that dst has not all staged. */
  | 'parts-missing'
  /** A put or append would leave the key's value over the size policy's limit. */
  | 'value-too-large';

/** What a recovering driver learns about one shard at one group. */
export interface ShardFacts {
  readonly phase: ShardPhase;
  readonly identity: Identity | null;
  readonly receipt: Receipt | null;
  readonly tombstone: Identity | null;
  /**
   * Set when the group serves the shard and it is larger than one part (the group's budget):
   * a move of it pre-copies before it freezes (image-delta.ts), a small one freezes at once.
   */
  readonly large?: true;
}

export type GroupResult =
  /** A get's answer: the key's value ('' for a missing key). */
  | { readonly type: 'value'; readonly value: string }
  /** A put's or append's answer: it applied (once, whatever the retries). */
  | { readonly type: 'ok' }
  /** Every migration result names its identity, so a late reply cannot pass for a new one. */
  | { readonly type: 'image'; readonly identity: Identity; readonly image: Image }
  /**
   * A freeze's answer for an image larger than one part: what binds the parts to stage, and
   * when src pinned a pre-copy base for the identity and little changed since, the delta
   * (then `manifest` is the base's, and the frozen image is the base with the delta applied).
   */
  | {
      readonly type: 'frozen';
      readonly identity: Identity;
      readonly manifest: PartsManifest;
      readonly delta?: ImageDelta;
    }
  /**
   * A precopy's answer: the base's manifest, or null when there is nothing to pre-copy (the
   * shard fits one part, or src froze it already): the driver freezes it at once.
   */
  | {
      readonly type: 'precopied';
      readonly identity: Identity;
      readonly manifest: PartsManifest | null;
    }
  /** A fetch-part's answer: part number `index` of the image with `digest`. */
  | {
      readonly type: 'part';
      readonly identity: Identity;
      readonly digest: Digest;
      readonly index: number;
      readonly part: ImagePart;
    }
  | { readonly type: 'receipt'; readonly receipt: Receipt }
  /** How many parts of the image with `digest` dst holds staged for `identity`. */
  | {
      readonly type: 'staged';
      readonly identity: Identity;
      readonly digest: Digest;
      readonly parts: number;
    }
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


