/**
 * The raft model's `sometimes` properties (checker/model.ts): states an exhaustive check must
 * reach, or the model is vacuous at its bounds. Each is declared only where the bounds allow
 * it (no read can be served with --max-reads 0).
 */
import type { Invariant } from '../../checker/model.js';
import { snapshotIndex } from '../../spec/raft/log.js';
import type { RaftBounds, RaftModelState } from './model-state.js';

export function raftSometimes(bounds: RaftBounds): Invariant<RaftModelState>[] {
  const properties: Invariant<RaftModelState>[] = [];
  if (bounds.values > 0 && bounds.maxLog > 0) {
    properties.push({ name: 'EntryCommitted', holds: (state) => state.committed.length > 0 });
  }
  if (bounds.maxReads > 0) {
    properties.push({
      name: 'ReadServed',
      holds: (state) => state.readsIssued > state.readsWaiting.length,
    });
  }
  if (bounds.maxCompactions > 0) {
    properties.push({
      name: 'SnapshotTaken',
      holds: (state) => state.servers.some((server) => snapshotIndex(server) > 0),
    });
  }
  return properties;
}
