/**
 * ReplicaAgreement (issue 26; Raft §5.4.3's State Machine Safety carried from the log to the
 * state): any two replicas of one Raft group that have applied the same index hold the same
 * state, compared by digest. StateMachineSafety compares the entries; this catches what the
 * entries cannot show: an entry applied twice at one replica, a snapshot labelled with the
 * wrong index, a restore that dropped part of the state. The controller group's replicas are
 * compared likewise.
 *
 * The digests cover the whole state (every key, value and dedup record of every shard; every
 * configuration and session of the controller), and each part is digested once: states are
 * immutable and a step replaces only the records it changes, so the digest of a record is
 * memoised on the record.
 */
import { assert } from '../spec/assert.js';
import type { ControllerState } from '../spec/controller/state-machine.js';
import type { Config } from '../spec/controller/types.js';
import { fnv1a64 } from '../spec/fnv.js';
import { imageDigest } from '../spec/group/digest.js';
import type { GroupState, ShardState } from '../spec/group/types.js';

/** A record digested once per object: an immutable state shares the records it keeps. */
function memoised<T extends object>(digests: WeakMap<T, string>, value: T, digest: () => string):
  string {
  let found = digests.get(value);
  if (found === undefined) digests.set(value, (found = digest()));
  return found;
}

const shardDigests = new WeakMap<ShardState, string>();
const configDigests = new WeakMap<Config, string>();

/** One shard record: its phase, identities, receipt and image (kv and dedup). */
function shardDigest(record: ShardState): string {
  return memoised(shardDigests, record, () => {
    const { phase, identity, frozenDigest, receipt, tombstone, staged } = record;
    const parts = staged === null ? null : [staged.identity, staged.manifest, staged.parts,
      imageDigest(staged.kv, staged.dedup)];
    return fnv1a64(JSON.stringify([phase, identity, frozenDigest, receipt, tombstone,
      imageDigest(record.kv, record.dedup), parts]));
  });
}

function configDigest(config: Config): string {
  return memoised(configDigests, config, () => fnv1a64(JSON.stringify(config)));
}

/**
 * The history's digest, memoised on its array: most steps keep the array (only a new
 * configuration makes a new one), so the history is digested once per configuration, not
 * once per applied entry.
 */
const historyDigests = new WeakMap<readonly Config[], string>();

function historyDigest(configs: readonly Config[]): string {
  return memoised(historyDigests, configs, () => fnv1a64(configs.map(configDigest).join(',')));
}

export function groupStateDigest(state: GroupState): string {
  return fnv1a64(JSON.stringify([state.gid, state.sessionFloor, state.shards.map(shardDigest)]));
}

type Sessions = ControllerState['sessions'];
type Session = Sessions[string];

/** A session's 64-bit hash with its client, as two 32-bit halves: memoised on the record. */
const sessionHashes = new WeakMap<Session, { client: string; high: number; low: number }>();
const sessionTableDigests = new WeakMap<Sessions, string>();

function sessionHash(client: string, session: Session): { high: number; low: number } {
  const known = sessionHashes.get(session);
  if (known !== undefined && known.client === client) return known;
  const digest = fnv1a64(`${JSON.stringify(client)}:${JSON.stringify(session)}`);
  const hash = { client, high: parseInt(digest.slice(0, 8), 16),
    low: parseInt(digest.slice(8), 16) };
  sessionHashes.set(session, hash);
  return hash;
}

/**
 * The sum (mod 2^64) of every session's hash with its client: independent of key order, since
 * a restored replica may have built its record in another order. A query replaces one
 * session and so makes a new table: summing memoised hashes costs a lookup a session, where
 * sorting the clients and digesting the whole table's text was a tenth of conform's time
 * (issue 23 item 4).
 */
function sessionsDigest(sessions: Sessions): string {
  let found = sessionTableDigests.get(sessions);
  if (found !== undefined) return found;
  let high = 0;
  let low = 0;
  for (const client in sessions) {
    const hash = sessionHash(client, sessions[client]!);
    const sum = low + hash.low;
    low = sum >>> 0;
    high = (high + hash.high + (sum > 0xffffffff ? 1 : 0)) >>> 0;
  }
  found = high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
  sessionTableDigests.set(sessions, found);
  return found;
}

export function controllerStateDigest(state: ControllerState): string {
  return fnv1a64(JSON.stringify([state.current, state.next, state.nextClient,
    historyDigest(state.configs), sessionsDigest(state.sessions)]));
}

/** The digest a replica's applied state has at one index, and who was seen holding it. */
export interface AppliedDigest {
  readonly digest: string;
  readonly replica: string;
}

/**
 * A Raft group's applied states by index, as first seen (the run view of ReplicaAgreement:
 * the simulator notes every live server's applied state after every event, conform every
 * replayed apply along the merge).
 */
export class AppliedDigestRecord {
  private readonly byIndex = new Map<number, AppliedDigest>();
  /** Indices below this were forgotten (forgetBelow): sightings there are not compared. */
  private forgottenBelow = 0;
  /** Sightings below the forgotten indices, not compared. */
  uncompared = 0;

  /** `seen` is a replica's state at `index`: the one first seen there, if it differs. */
  note(index: number, seen: AppliedDigest): AppliedDigest | null {
    assert(Number.isSafeInteger(index) && index >= 0, `applied index ${index}`);
    if (index < this.forgottenBelow) {
      this.uncompared++;
      return null;
    }
    const first = this.byIndex.get(index);
    if (first === undefined) {
      this.byIndex.set(index, seen);
      return null;
    }
    return replicasAgree({ index, digest: first.digest }, { index, digest: seen.digest })
      ? null : first;
  }

  /** No replica will be seen at an index below `index` again: those digests are dropped. */
  forgetBelow(index: number): void {
    for (let at = this.forgottenBelow; at < index; at++) this.byIndex.delete(at);
    this.forgottenBelow = Math.max(this.forgottenBelow, index);
  }

  /** Indices whose digest is kept. */
  get retained(): number {
    return this.byIndex.size;
  }
}

export function explainReplicaAgreement(
  group: string,
  index: number,
  seen: AppliedDigest,
  first: AppliedDigest,
): string {
  return `${group}: ${seen.replica} holds state ${seen.digest} at applied index ${index}, ` +
    `${first.replica} held ${first.digest} there`;
}

export const replicaAgreementName = 'ReplicaAgreement';

/** The predicate over two sightings: the same applied index means the same state. */
export function replicasAgree(
  a: { readonly index: number; readonly digest: string },
  b: { readonly index: number; readonly digest: string },
): boolean {
  return a.index !== b.index || a.digest === b.digest;
}

/** Either kind of replica's applied state. */
export function appliedStateDigest(state: GroupState | ControllerState): string {
  return 'configs' in state ? controllerStateDigest(state) : groupStateDigest(state);
}
