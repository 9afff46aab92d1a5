/**
 * `check raft --preset raft.tla`: Ongaro's raft.tla (github ongardie/raft.tla, the version
 * with the proof-only history variables) transcribed action for action, to calibrate the
 * checker against TLC. Same actions at the same granularity (Restart, Timeout,
 * RequestVote(i, j), BecomeLeader, ClientRequest(i, v), AdvanceCommitIndex, AppendEntries(i, j)
 * with at most one entry, Receive with UpdateTerm / DropStaleResponse / the four handlers,
 * DuplicateMessage, DropMessage), the same variables including the history variables
 * `elections`, `allLogs`, `voterLog` and the `mlog` fields of messages (they change what counts
 * as a distinct state), and TLC's state constraint:
 *
 *   \A i : currentTerm[i] <= MaxTerm /\ Len(log[i]) <= MaxLogLen, and the bag holds at most
 *   MaxMsgs copies in all.
 *
 * One reading is needed: raft.tla's WithoutMessage leaves a message whose count reaches 0 in
 * DOMAIN messages, from where it could be received (or dropped) again, driving counts below
 * zero without bound. Here the last copy leaves the bag, the reading TLC's counts agree with.
 *
 * The state layout is in tla-state.ts, the context (bounds, successor) in tla-raft.ts, the
 * actions in tla-server-actions.ts, tla-receive.ts and tla-network.ts, dispatched by
 * tla-actions.ts and offered by role (tla-offered.ts); the codec, the invariants and the
 * printing have a file each. This file assembles the checker's model. It is for calibration only: the step function of
 * spec/raft/step.ts is what the `raft` model and the runtime call.
 */
import type { Model } from '../../checker/model.js';
import { staticActions, stepTla, type TlaAction } from './tla-actions.js';
import { tlaCodec } from './tla-codec.js';
import { tlaInvariants } from './tla-invariants.js';
import { TlaOffered } from './tla-offered.js';
import { TlaRaft, type TlaBounds } from './tla-raft.js';
import { withLogs, type TlaState } from './tla-state.js';
import { tlaLabel, tlaVariables } from './tla-variables.js';

/** The raft.tla preset as a checker model. */
export function createTlaModel(bounds: TlaBounds): Model<TlaState, TlaAction> {
  const raft = new TlaRaft(bounds);
  const offered = new TlaOffered(raft, staticActions(bounds));
  let allLogsFrom: TlaState | undefined;
  const { invariants, invariantsHold, expanding } = tlaInvariants(raft);
  return {
    name: 'raft',
    initialStates: () => [raft.initialState()],
    actions: (state) => offered.actions(state),
    next: (state, action) => {
      if (allLogsFrom !== state) {
        allLogsFrom = state;
        expanding(state);
        raft.allLogsNext = withLogs(state.allLogs, state.servers, bounds.servers);
      }
      return stepTla(raft, state, action);
    },
    label: tlaLabel,
    invariants,
    invariantsHold,
    withinBounds: (state) => raft.withinBounds(state),
    codec: tlaCodec(raft),
    variables: (state) => tlaVariables(raft, state),
  };
}
