/**
 * The `raft` model's invariants: the library's Raft invariants (invariants/raft.ts), read on
 * the model's state, which is the library's view of a group as it is (its proof-only history
 * variables included), so the checker's hot loop builds nothing. The model's commands are
 * client values (v1..vK) and its snapshot's data the list of applied commands.
 */
import type { Invariant } from '../../checker/model.js';
import { raftInvariants as groupInvariants } from '../../invariants/raft.js';
import type { RaftReading } from '../../invariants/raft-view.js';
import { windowOf } from '../../spec/raft/progress.js';
import type { RaftOptions } from '../../spec/raft/types.js';
import {
  commandAt,
  type ModelCommand,
  type ModelData,
  type RaftModelState,
} from './model-state.js';
import { serverName, valueName } from './printing.js';

const modelReading: RaftReading<ModelCommand, ModelData> = {
  commandAt,
  serverName,
  commandName: (command) => valueName(command)!,
};

export const raftInvariants: readonly Invariant<RaftModelState>[] = groupInvariants(modelReading);

/** The invariants of a model whose nodes run with `options` (its flow control's window). */
export function raftInvariantsFor(options: RaftOptions): readonly Invariant<RaftModelState>[] {
  const window = windowOf(options);
  return window === null ? raftInvariants : groupInvariants(modelReading, window);
}
