/** A source of random numbers; the seeded one (impl/random) makes every run reproducible. */
export interface Random {
  /** A uniform integer in [0, bound); bound is an integer in [1, 2^32]. */
  nextInt(bound: number): number;
  /** A uniform number in [0, 1) with 53 random bits. */
  nextFloat(): number;
  /** A uniform unsigned 32-bit integer. */
  nextUint32(): number;
  /** A new generator whose stream is independent of this one's later draws. */
  split(): Random;
}
