/**
 * Digests and key placement. Every replica computes the same digest for the same request or
 * image: dedup records bind a (client, seq) to its request (FNV-1a, 32 bits: it only has to
 * tell apart the requests of one (client, seq)); receipts bind an identity to the image that
 * was installed (FNV-1a, 64 bits: an image can be large, and a digest collision there would
 * let a wrong image pass for the frozen one). Neither resists an adversary; neither has to
 * (spec/fnv.ts).
 */
import { fnv1a, fnv1a64, Fnv64 } from '../fnv.js';
import type { ClientRequest, DedupMap, Digest, Identity, KvMap } from './types.js';

// JSON.stringify quotes and escapes, so field boundaries cannot be forged by the contents.
export function requestDigest(request: ClientRequest): number {
  const { client, seq, op, key, value } = request;
  return fnv1a(JSON.stringify([client, seq, op, key, value]));
}

/**
 * The digest of a shard image: every KV entry, then every dedup record, in key order, each
 * rendered as a JSON array (a separator between the two parts keeps them apart). O(n), so
 * the group computes it once, at freeze.
 */
export function imageDigest(kv: KvMap, dedup: DedupMap): Digest {
  const hash = new Fnv64();
  for (const [key, value] of kv.entries()) hash.update(JSON.stringify([key, value]));
  hash.update('|');
  for (const [, record] of dedup.entries()) {
    hash.update(JSON.stringify([record.client, record.seq, record.digest, record.result]));
  }
  return hash.hex();
}

/**
 * The name of the pre-copy base src pins for `identity` (image-delta.ts), in its manifest's
 * digest field. Not a hash of its content: src pins at most one base per identity (a repeat
 * answers the pinned one), so the identity names it, and pinning reads no value; hashing a
 * 10 MiB base stalled src's apply loop (heartbeats and reads of every shard) for 0.2-0.9 s.
 */
export function precopyDigest(identity: Identity): Digest {
  const { shard, epoch, src, dst } = identity;
  return fnv1a64(JSON.stringify(['precopy', shard, epoch, src, dst]));
}

export function sameIdentity(a: Identity | null, b: Identity | null): boolean {
  if (a === null || b === null) return a === b;
  return a.shard === b.shard && a.epoch === b.epoch && a.src === b.src && a.dst === b.dst;
}

/** The first UTF-8 byte of the key, without allocating an encoding. */
function firstUtf8Byte(key: string): number {
  const codePoint = key.codePointAt(0);
  if (codePoint === undefined) return 0;
  if (codePoint < 0x80) return codePoint;
  if (codePoint < 0x800) return 0xc0 | (codePoint >> 6);
  if (codePoint < 0x10000) return 0xe0 | (codePoint >> 12);
  return 0xf0 | (codePoint >> 18);
}

/** CONTRACT: key2shard(key) = first UTF-8 byte of the key mod S (0 for the empty key). */
export function key2shard(key: string, shardCount: number): number {
  return firstUtf8Byte(key) % shardCount;
}
