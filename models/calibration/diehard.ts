/**
 * The Die Hard jug puzzle, as in the TLA+ examples (DieHard.tla): a 3-gallon and a 5-gallon
 * jug, fill, empty or pour one into the other. The "invariant" NotSolved (the big jug never
 * holds 4 gallons) is false on purpose: its shortest counterexample is the puzzle's answer,
 * 6 steps. The reachable space has 16 distinct states, which calibrates the checker with TLC.
 * It is docs/adding-a-model.md's worked example of `defineModel`: the codec, labels and names are defaults.
 */
import { defineModel } from '../../checker/define-model.js';
import type { Model } from '../../checker/model.js';

export interface Jugs {
  readonly small: number;
  readonly big: number;
}

export type JugAction =
  'FillSmallJug' | 'FillBigJug' | 'EmptySmallJug' | 'EmptyBigJug' | 'SmallToBig' | 'BigToSmall';

const smallCapacity = 3;
const bigCapacity = 5;
const allActions: readonly JugAction[] = [
  'FillSmallJug',
  'FillBigJug',
  'EmptySmallJug',
  'EmptyBigJug',
  'SmallToBig',
  'BigToSmall',
];

export function pour(jugs: Jugs, action: JugAction): Jugs {
  switch (action) {
    case 'FillSmallJug':
      return { small: smallCapacity, big: jugs.big };
    case 'FillBigJug':
      return { small: jugs.small, big: bigCapacity };
    case 'EmptySmallJug':
      return { small: 0, big: jugs.big };
    case 'EmptyBigJug':
      return { small: jugs.small, big: 0 };
    case 'SmallToBig': {
      const big = Math.min(jugs.big + jugs.small, bigCapacity);
      return { small: jugs.small - (big - jugs.big), big };
    }
    case 'BigToSmall': {
      const small = Math.min(jugs.big + jugs.small, smallCapacity);
      return { small, big: jugs.big - (small - jugs.small) };
    }
  }
}

export const dieHardDefinition = defineModel({
  name: 'diehard',
  description: 'TLA+ DieHard jug puzzle (calibration: NotSolved fails in 6 steps, after 14 states; '
    + '16 in all with --continue, as TLC)',
  expectedViolation: 'NotSolved',
  create: () => ({
    initialStates: (): Jugs[] => [{ small: 0, big: 0 }],
    actions: () => allActions,
    next: pour,
    invariants: {
      TypeOK: (jugs: Jugs) =>
        jugs.small >= 0 && jugs.small <= smallCapacity && jugs.big >= 0 && jugs.big <= bigCapacity,
      NotSolved: (jugs: Jugs) => jugs.big !== 4,
    },
    // Both jugs full at once: the puzzle's moves reach every corner of the space.
    sometimes: {
      BothFull: (jugs: Jugs) => jugs.small === smallCapacity && jugs.big === bigCapacity,
    },
  }),
});

/** The DieHard model, typed, as tests and benchmarks use it. */
export function createDieHardModel(): Model<Jugs, JugAction> {
  return dieHardDefinition.build(dieHardDefinition.defaults);
}
