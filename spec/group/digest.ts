/**
 * Digests and key placement. A digest is FNV-1a (32 bits) over a canonical rendering, so
 * every replica computes the same number for the same request or image: dedup records bind a
 * (client, seq) to its request, receipts bind an identity to the image that was installed.
 * 32 bits suffice: a digest only has to tell apart the requests of one (client, seq) and
 * the images of one identity, not resist an adversary.
 */
import type { ClientRequest, DedupRecord, Identity, Image, KvEntry } from './types.js';

const fnvOffset = 0x811c9dc5;
const fnvPrime = 0x01000193;

/** FNV-1a over the UTF-16 code units of `text`, as an unsigned 32-bit number. */
export function fnv1a(text: string, seed = fnvOffset): number {
  let hash = seed;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, fnvPrime);
  }
  return hash >>> 0;
}

// JSON.stringify quotes and escapes, so field boundaries cannot be forged by the contents.
export function requestDigest(request: ClientRequest): number {
  const { client, seq, op, key, value } = request;
  return fnv1a(JSON.stringify([client, seq, op, key, value]));
}

function renderEntries(kv: readonly KvEntry[]): string {
  return JSON.stringify(kv.map((entry) => [entry.key, entry.value]));
}

function renderDedup(dedup: readonly DedupRecord[]): string {
  return JSON.stringify(
    dedup.map((record) => [record.client, record.seq, record.digest, record.result]),
  );
}

export function imageDigest(image: Image): number {
  return fnv1a(renderDedup(image.dedup), fnv1a(renderEntries(image.kv)));
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
