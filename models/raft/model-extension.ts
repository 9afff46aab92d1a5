/**
 * Models that extend the `raft` model with a few words of their own (liveness.ts's budgets,
 * refinement-model.ts's verdict) keep the raft state whole beside them, so the raft model's
 * invariants, codec, labels and diagram serve them unchanged.
 */
import type { Invariant, StateCodec } from '../../checker/model.js';
import type { WordReader, WordWriter } from '../../checker/words.js';
import type { RaftModelState } from './model-state.js';

/** The raft model's invariants, read on the raft part of an extended state. */
export function liftInvariants<State extends { readonly raft: RaftModelState }>(
  invariants: readonly Invariant<RaftModelState>[],
): Invariant<State>[] {
  return invariants.map((invariant) => ({
    name: invariant.name,
    holds: (state: State) => invariant.holds(state.raft),
    ...(invariant.explain ? { explain: (state: State) => invariant.explain!(state.raft) } : {}),
  }));
}

/** The raft codec followed by the extension's own words. */
export function extendCodec<State extends { readonly raft: RaftModelState }>(
  codec: StateCodec<RaftModelState>,
  writeExtra: (state: State, out: WordWriter) => void,
  readExtra: (raft: RaftModelState, input: WordReader) => State,
): StateCodec<State> {
  return {
    encode: (state, out) => {
      codec.encode(state.raft, out);
      writeExtra(state, out);
    },
    decode: (input) => readExtra(codec.decode(input), input),
  };
}
