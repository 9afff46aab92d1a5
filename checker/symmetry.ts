/**
 * Symmetry reduction (TLC's SYMMETRY, Stateright's representative states): when ids are
 * interchangeable (servers, groups, clients), a state and its images under every permutation
 * of those ids are one state to the checker. A model's `writeView` writes the least of the
 * encodings of the state under each permutation, so all images share one fingerprint.
 */
import { ok as assert } from 'node:assert';
import { WordWriter } from './words.js';

/** Bounds the n! encodings a view costs. */
export const symmetricIdsMax = 7;

/** Every permutation of 0..count-1, in lexicographic order; permutation[i] is i's image. */
export function permutations(count: number): readonly (readonly number[])[] {
  assert(count >= 0 && count <= symmetricIdsMax, `symmetry over ${count} ids is not supported`);
  const result: number[][] = [];
  const current = Array.from({ length: count }, (_, index) => index);
  // Heap-free iterative lexicographic enumeration (next permutation), no recursion.
  for (;;) {
    result.push(current.slice());
    let pivot = count - 2;
    while (pivot >= 0 && current[pivot]! > current[pivot + 1]!) pivot--;
    if (pivot < 0) return result;
    let successor = count - 1;
    while (current[successor]! < current[pivot]!) successor--;
    [current[pivot], current[successor]] = [current[successor]!, current[pivot]!];
    current.splice(pivot + 1, count - pivot - 1, ...current.slice(pivot + 1).reverse());
  }
}

let least = new WordWriter();
let candidate = new WordWriter();

/**
 * Writes into `out` the least (by length, then word by word) of the encodings that `write`
 * gives for each renaming that `admits` accepts (all by default; a model may skip renamings
 * it knows cannot be least, as long as every image of a state admits the same encodings).
 */
export function writeLeastView<Renaming>(
  out: WordWriter,
  renamings: readonly Renaming[],
  write: (renaming: Renaming, out: WordWriter) => void,
  admits: (renaming: Renaming) => boolean = () => true,
): void {
  let found = false;
  for (const renaming of renamings) {
    if (!admits(renaming)) continue;
    candidate.reset();
    write(renaming, candidate);
    if (!found || compareWords(candidate, least) < 0) {
      [least, candidate] = [candidate, least];
      found = true;
    }
  }
  assert(found, 'at least one renaming must be admitted');
  out.pushWords(least.words, 0, least.length);
}

/** Orders two encodings: the shorter first, then word by word. */
export function compareWords(a: WordWriter, b: WordWriter): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let index = 0; index < a.length; index++) {
    const difference = a.words[index]! - b.words[index]!;
    if (difference !== 0) return difference;
  }
  return 0;
}
