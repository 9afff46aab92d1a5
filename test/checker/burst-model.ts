// A model whose second level is 30,000 times its first's size: the parallel BFS grows its
// visited set ahead of a level by the last level's ratio (parallel-bfs.ts), so this level
// outgrows the prediction and the workers grow the set mid-level, at their barrier.
import { defineModel, type ModelSpec } from '../../checker/define-model.js';

const firstLevel = 10;
const fanOut = 30_000;

export const burstDefinition = defineModel({
  name: 'burst',
  description: 'one state, ten, then 300,000 (parallel BFS growth test)',
  create: (): ModelSpec<number, number> => ({
    initialStates: () => [0],
    actions: (state: number) => {
      if (state === 0) return Array.from({ length: firstLevel }, (_, index) => index + 1);
      if (state <= firstLevel) return Array.from({ length: fanOut }, (_, index) => index);
      return [];
    },
    next: (state: number, action: number) =>
      state === 0 ? action : firstLevel + 1 + (state - 1) * fanOut + action,
    invariants: { NonNegative: (state: number) => state >= 0 },
  }),
});
