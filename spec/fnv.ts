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
 * units, kept as two unsigned 32-bit halves. Multiplying by the prime is h * 0x1b3 plus h
 * shifted left by 40 bits: the low half's product keeps its low 32 bits (Math.imul) and
 * carries the rest to the high half, which also gains the low half shifted left by 8 bits
 * (mod 2^32). The carry is computed from the low half's two 16-bit halves, in integers: a
 * shard image's digest runs this loop once per character of the image (10 MiB at a freeze),
 * and a floating-point division per character took twice as long.
 */
export class Fnv64 {
  private low = 0x84222325;
  private high = 0xcbf29ce4;

  update(text: string): void {
    let { low, high } = this;
    for (let index = 0; index < text.length; index++) {
      low = (low ^ text.charCodeAt(index)) >>> 0;
      // (low * 0x1b3) >>> 32, each 16-bit half's product under 2^25.
      const carry = ((low >>> 16) * 0x1b3 + (((low & 0xffff) * 0x1b3) >>> 16)) >>> 16;
      high = (Math.imul(high, 0x1b3) + carry + (low << 8)) >>> 0;
      low = Math.imul(low, 0x1b3) >>> 0;
    }
    this.low = low;
    this.high = high;
  }

  /** The hash as 16 hexadecimal digits. */
  hex(): string {
    return this.high.toString(16).padStart(8, '0') + this.low.toString(16).padStart(8, '0');
  }
}

/** The 64-bit FNV-1a of `text`, as 16 hexadecimal digits. */
export function fnv1a64(text: string): string {
  const hash = new Fnv64();
  hash.update(text);
  return hash.hex();
}
