/**
 * Digests and key placement. Every replica computes the same digest for the same request or
 * image: dedup records bind a (client, seq) to its request (FNV-1a, 32 bits: it only has to
 * tell apart the requests of one (client, seq)); receipts bind an identity to the image that
 * was installed (FNV-1a, 64 bits: an image can be large, and a digest collision there would
 * let a wrong image pass for the frozen one). Neither resists an adversary; neither has to.
 */
import type { ClientRequest, DedupMap, Digest, Identity, KvMap } from './types.js';

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

/**
 * FNV-1a with 64 bits (offset 0xcbf29ce484222325, prime 2^40 + 0x1b3) over UTF-16 code
 * units, kept in four 16-bit limbs so that every product stays an exact double: multiplying
 * by the prime is h * 0x1b3 plus h shifted left by 40 bits (two limbs and 8 bits).
 */
class Fnv64 {
  private limbs = [0x2325, 0x8422, 0x9ce4, 0xcbf2];

  update(text: string): void {
    let [h0, h1, h2, h3] = this.limbs as [number, number, number, number];
    for (let index = 0; index < text.length; index++) {
      h0 ^= text.charCodeAt(index);
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3 + (t0 >>> 16);
      const t2 = h2 * 0x1b3 + (h0 << 8) + Math.floor(t1 / 0x10000);
      const t3 = h3 * 0x1b3 + (h1 << 8) + Math.floor(t2 / 0x10000);
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      h3 = t3 & 0xffff;
    }
    this.limbs = [h0, h1, h2, h3];
  }

  hex(): Digest {
    return this.limbs.map((limb) => limb.toString(16).padStart(4, '0')).reverse().join('');
  }
}

/** The 64-bit FNV-1a of `text`, as 16 hexadecimal digits (for tests against known values). */
export function fnv1a64(text: string): Digest {
  const hash = new Fnv64();
  hash.update(text);
  return hash.hex();
}

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
