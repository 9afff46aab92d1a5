/** A fresh seed for a real process's SeededRandom (the simulator takes its seed as input). */
import { randomInt } from 'node:crypto';

export function entropySeed(): number {
  return randomInt(0, 2 ** 48 - 1);
}
