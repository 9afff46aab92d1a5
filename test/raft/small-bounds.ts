// Small raft bounds shared by model.test.ts and model-counts.test.ts.
import type { RaftBounds } from '../../models/raft/model-state.js';

export const small: RaftBounds = {
  servers: 3,
  values: 1,
  maxTerm: 1,
  maxLog: 1,
  maxMsgs: 1,
  maxRestarts: 1,
  maxCompactions: 1,
  maxReads: 1,
};
export const twoTerms: RaftBounds = {
  ...small,
  maxTerm: 2,
  maxLog: 2,
  maxRestarts: 0,
  maxCompactions: 0,
  maxReads: 0,
};
