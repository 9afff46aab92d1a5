/**
 * Digests of an actor's state after a step, cheap enough for every step: none rehashes a
 * whole log, a whole KV map or a snapshot. What a digest leaves out is covered by the
 * effects that conform compares step by step (the saved entries, the applied results).
 *
 * - Raft: every scalar and per-peer field of the node, and the log's bounds (snapshot index
 *   and term, length, last term); the entries themselves travel in saveEntries effects.
 * - Machine: a chain, digest(previous digest, applied index, a summary of the state after):
 *   per shard phase, epoch and map sizes, the session floor (a group); the number of
 *   configurations, current, next and the next session id (the controller). The chain makes
 *   a divergence at one apply show in every later digest.
 * - Driver: its beliefs, with images by their digest.
 */
import type { ControllerState } from '../../spec/controller/state-machine.js';
import { fnv1a64 } from '../../spec/group/digest.js';
import type { GroupState } from '../../spec/group/types.js';
import type { DriverState } from '../../spec/migration/types.js';
import type { RaftNode } from '../../spec/raft/types.js';

export function raftDigest(node: RaftNode<unknown, unknown>): string {
  const lastTerm = node.log.length > 0
    ? node.log[node.log.length - 1]!.term : node.snapshot?.lastIncludedTerm ?? 0;
  return fnv1a64([
    node.currentTerm, node.votedFor, node.role, node.commitIndex, node.leader,
    node.votesGranted, node.nextIndex.join(','), node.matchIndex.join(','),
    node.recentlyActive, node.readSequence, node.pendingReads.length,
    node.snapshot?.lastIncludedIndex ?? 0, node.snapshot?.lastIncludedTerm ?? 0,
    node.log.length, lastTerm,
  ].join('|'));
}

export type MachineState =
  | { readonly kind: 'group'; readonly state: GroupState }
  | { readonly kind: 'controller'; readonly state: ControllerState };

function machineSummary(machine: MachineState): string {
  if (machine.kind === 'controller') {
    const { configs, current, next, nextClient } = machine.state;
    return `${configs.length}|${current}|${next?.num ?? '-'}|${nextClient}`;
  }
  const shards = machine.state.shards.map((shard) =>
    `${shard.phase}:${shard.identity?.epoch ?? '-'}:${shard.kv.size}:${shard.dedup.size}`);
  return `${shards.join(',')}|${machine.state.sessionFloor}`;
}

/** The chained digest after applying (or restoring) up to `index`. */
export function machineDigest(previous: string, index: number, machine: MachineState): string {
  return fnv1a64(`${previous}|${index}|${machineSummary(machine)}`);
}

/** The digest a machine chain starts from (a fresh start, before any apply). */
export const machineDigestStart = '0000000000000000';

export function driverDigest(driver: DriverState): string {
  const progress = driver.progress.map((shard) => {
    switch (shard.step) {
      case 'install':
        return `install:${shard.image?.digest ?? '-'}`;
      case 'delete':
        return `delete:${shard.receipt.digest}`;
      default:
        return shard.step;
    }
  });
  return fnv1a64(`${driver.num ?? '-'}|${progress.join(',')}`);
}
