// Symmetry reduction: permutations and the least view shared by a state's images.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { permutations, writeLeastView } from '../../checker/symmetry.js';
import { WordWriter } from '../../checker/words.js';

test('permutations: n! of them, lexicographic, each a bijection', () => {
  assert.equal(permutations(3), [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ]);
  assert.is(permutations(5).length, 120);
  assert.equal(permutations(0), [[]]);
  for (const permutation of permutations(4)) assert.equal([...permutation].sort(), [0, 1, 2, 3]);
  assert.throws(() => permutations(8), /not supported/);
});

test('the least view is the same for every image of a state', () => {
  // A state: a value per id. Its image under p puts values[i] at position p[i].
  const ids = permutations(3);
  const viewOf = (values: readonly number[]) => {
    const out = new WordWriter();
    writeLeastView(out, ids, (permutation, target) => {
      const image: number[] = [];
      values.forEach((value, id) => (image[permutation[id]!] = value));
      for (const value of image) target.push(value);
    });
    return [...out.words.subarray(0, out.length)];
  };
  assert.equal(viewOf([5, 1, 3]), [1, 3, 5]);
  assert.equal(viewOf([3, 5, 1]), [1, 3, 5]);
  assert.not.equal(viewOf([3, 5, 2]), [1, 3, 5]);
});

test('admits: only the admitted renamings are tried (the raft view admits those that sort)', () => {
  const tried: number[][] = [];
  const out = new WordWriter();
  writeLeastView(
    out,
    permutations(3),
    (permutation, target) => {
      tried.push([...permutation]);
      for (const id of permutation) target.push(id);
    },
    (permutation) => permutation[0] === 2,
  );
  assert.equal(tried, [[2, 0, 1], [2, 1, 0]]);
  assert.equal([...out.words.subarray(0, out.length)], [2, 0, 1]);
  assert.throws(() => writeLeastView(new WordWriter(), permutations(2), () => {}, () => false),
    /at least one renaming/);
});

test.run();
