/**
 * xoshiro128** 1.1 (Blackman and Vigna, "Scrambled linear pseudorandom number generators", 2018;
 * prng.di.unimi.it/xoshiro128starstar.c): 128 bits of state in four 32-bit words, plain integer
 * arithmetic (Math.imul), so a seed gives the same stream on every platform. The seed expands
 * through SplitMix64. One seed drives a whole simulation; every fault it injects is a draw here.
 */
import { assert } from '../../spec/assert.js';
import type { Random } from '../io/random.js';
import { splitMix64Words } from './splitmix64.js';

const twoTo32 = 2 ** 32;
/** Rejection in nextInt loses less than half a draw's range, so this is never reached. */
const rejectionDrawsMax = 64;

export class SeededRandom implements Random {
  private readonly state: Uint32Array;

  /** `seed`: a non-negative safe integer or a 64-bit BigInt. */
  constructor(seed: number | bigint) {
    if (typeof seed === 'number') {
      assert(Number.isSafeInteger(seed) && seed >= 0, `seed must be an integer >= 0: ${seed}`);
    }
    this.state = Uint32Array.from(splitMix64Words(BigInt(seed)));
    assert(this.state.some((word) => word !== 0), 'xoshiro state must not be all zero');
  }

  /** A generator with the given raw state words (for known-answer tests). */
  static fromState(words: readonly [number, number, number, number]): SeededRandom {
    const random = new SeededRandom(0);
    random.state.set(words);
    assert(random.state.some((word) => word !== 0), 'xoshiro state must not be all zero');
    return random;
  }

  nextUint32(): number {
    const s = this.state;
    const result = Math.imul(rotateLeft(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const shifted = s[1]! << 9;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= shifted;
    s[3] = rotateLeft(s[3]!, 11);
    return result;
  }

  nextInt(bound: number): number {
    assert(Number.isInteger(bound) && bound >= 1 && bound <= twoTo32, `bad bound ${bound}`);
    // Unbiased: reject the top partial copy of [0, bound) in [0, 2^32).
    const limit = twoTo32 - (twoTo32 % bound);
    for (let draw = 0; draw < rejectionDrawsMax; draw++) {
      const value = this.nextUint32();
      if (value < limit) return value % bound;
    }
    throw new Error(`nextInt(${bound}) rejected ${rejectionDrawsMax} draws in a row`);
  }

  nextFloat(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 2 ** 26 + low) / 2 ** 53;
  }

  split(): SeededRandom {
    const seed = (BigInt(this.nextUint32()) << 32n) | BigInt(this.nextUint32());
    return new SeededRandom(seed);
  }
}

function rotateLeft(value: number, bits: number): number {
  return ((value << bits) | (value >>> (32 - bits))) >>> 0;
}
