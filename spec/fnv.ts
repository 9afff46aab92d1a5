/**
 * FNV-1a (Fowler, Noll, Vo), the project's one hash: 32 bits over UTF-16 code units, bytes or
 * 32-bit words, and 64 bits over code units. The group's digests (group/digest.ts), the
 * runtime's state digests (impl/trace) and the simulator's event log use it; none of them has
 * to resist an adversary, only to tell apart what differs. Digests in kept traces depend on
 * these exact values: test/group/digest.test.ts pins them to the published test vectors.
 */

/** The 32-bit offset basis, the hash of nothing. */
export const fnvOffset32 = 0x811c9dc5;
const fnvPrime32 = 0x01000193;

/** One step: `unit` (a code unit, a byte or a 32-bit word) mixed into `hash`, as an int32. */
export function fnv1aStep(hash: number, unit: number): number {
  return Math.imul(hash ^ unit, fnvPrime32);
}

/** FNV-1a over the UTF-16 code units of `text`, from `seed`, as an unsigned 32-bit number. */
export function fnv1a(text: string, seed = fnvOffset32): number {
  let hash = seed;
  for (let index = 0; index < text.length; index++) {
    hash = fnv1aStep(hash, text.charCodeAt(index));
  }
  return hash >>> 0;
}

/** FNV-1a over bytes, as an unsigned 32-bit number. */
export function fnv1aBytes(bytes: Uint8Array): number {
  let hash = fnvOffset32;
  for (let index = 0; index < bytes.length; index++) hash = fnv1aStep(hash, bytes[index]!);
  return hash >>> 0;
}

/**
 * FNV-1a with 64 bits (offset 0xcbf29ce484222325, prime 2^40 + 0x1b3) over UTF-16 code
 * units, kept in four 16-bit limbs so that every product stays an exact double: multiplying
 * by the prime is h * 0x1b3 plus h shifted left by 40 bits (two limbs and 8 bits).
 */
export class Fnv64 {
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

  /** The hash as 16 hexadecimal digits. */
  hex(): string {
    return this.limbs.map((limb) => limb.toString(16).padStart(4, '0')).reverse().join('');
  }
}

/** The 64-bit FNV-1a of `text`, as 16 hexadecimal digits. */
export function fnv1a64(text: string): string {
  const hash = new Fnv64();
  hash.update(text);
  return hash.hex();
}
