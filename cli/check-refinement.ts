/**
 * After `check raft --refines raft.tla` finds every step mapped, the mapping figures the docs
 * quote (how many transitions map onto one, two, ... raft.tla actions, stutters, deviations),
 * from the refinement model's second pass (models/raft/refinement-figures.ts).
 */
import type { AnyModel } from '../checker/model.js';
import {
  formatRefinementFigures, type RefinementFigures,
} from '../models/raft/refinement-figures.js';

export function refinementFiguresOf(model: AnyModel): RefinementFigures | undefined {
  const withFigures = model as AnyModel & { mappingFigures?: () => RefinementFigures };
  return withFigures.mappingFigures?.();
}

export { formatRefinementFigures };
