/**
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014;
 * Vigna's splitmix64.c), used only to expand a seed into xoshiro128**'s 128-bit state, as Vigna
 * recommends. BigInt is slow but runs four times per generator.
 */
const mask64 = (1n << 64n) - 1n;
const golden = 0x9e3779b97f4a7c15n;

/** Advances `state` (returned) and returns the next output, as the reference does. */
export function splitMix64Next(state: bigint): { state: bigint; output: bigint } {
  const next = (state + golden) & mask64;
  let mixed = next;
  mixed = ((mixed ^ (mixed >> 30n)) * 0xbf58476d1ce4e5b9n) & mask64;
  mixed = ((mixed ^ (mixed >> 27n)) * 0x94d049bb133111ebn) & mask64;
  return { state: next, output: mixed ^ (mixed >> 31n) };
}

/** Four 32-bit words from the first two outputs for `seed`: [low, high, low, high]. */
export function splitMix64Words(seed: bigint): [number, number, number, number] {
  const first = splitMix64Next(seed & mask64);
  const second = splitMix64Next(first.state);
  return [
    Number(first.output & 0xffffffffn),
    Number(first.output >> 32n),
    Number(second.output & 0xffffffffn),
    Number(second.output >> 32n),
  ];
}
