// Two small models whose states the disk search's workers leave to the main thread
// (checker/disk-expand-worker.ts): one deadlocks, one steps outside its bounds into a state
// that breaks its invariant. A module of its own: the workers load the models from it.
import { defineModel, type ModelSpec } from '../../checker/define-model.js';

/** Counts up by 1 or 2 from 0 and stops at 9 or 10: a deadlock at depth 5. */
export const deadlockDefinition = defineModel({
  name: 'disk-deadlock',
  description: 'counts up by 1 or 2 and stops at 9 (disk workers test)',
  create: (): ModelSpec<number, number> => ({
    initialStates: () => [0],
    actions: (state: number) => (state >= 9 ? [] : [1, 2]),
    next: (state: number, step: number) => state + step,
    invariants: { Small: (state: number) => state <= 10 },
  }),
});

/** Counts up by 1 or 3 within 0..20: 21 + 2 = 23 lies outside and breaks the invariant. */
export const outsideDefinition = defineModel({
  name: 'disk-outside',
  description: 'counts up by 1 or 3 within 0..20; 23 is out of bounds and bad (disk test)',
  create: (): ModelSpec<number, number> => ({
    initialStates: () => [0],
    actions: () => [1, 3],
    next: (state: number, step: number) => state + step,
    withinBounds: (state: number) => state <= 20,
    invariants: { Not23: (state: number) => state !== 23 },
    isTerminal: () => true,
  }),
});
