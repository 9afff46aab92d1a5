/**
 * Digests of an actor's state after a step, cheap enough for every step: none rehashes a
 * whole log, a whole KV map or a snapshot, and none builds a string: the numbers are mixed
 * in directly. What a digest leaves out is covered by the effects that conform compares step
 * by step (the saved entries, the applied results).
 *
 * - Raft: every scalar and per-peer field of the node, and the log's bounds (snapshot index
 *   and term, length, last term); the entries themselves travel in saveEntries effects.
 * - Machine: a chain, digest(previous digest, applied index, a summary of the state after):
 *   per shard phase, epoch and map sizes, what it staged, the session floor (a group); the number of
 *   configurations, current, next and the next session id (the controller). The chain makes
 *   a divergence at one apply show in every later digest.
 * - Driver: its beliefs, with images by their digest.
 */
import type { ControllerState } from '../../spec/controller/state-machine.js';
import { fnv1a, fnv1aStep, fnvOffset32 } from '../../spec/fnv.js';
import type { GroupState, ShardFacts, ShardPhase } from '../../spec/group/types.js';
import type { DriverState } from '../../spec/migration/types.js';
import { lastLogTerm } from '../../spec/raft/log.js';
import type { RaftNode, Role } from '../../spec/raft/types.js';

const murmurMultiplier = 0x5bd1e995;
const twoToThe32 = 4_294_967_296;

/** Two 32-bit lanes (FNV-1a and a Murmur-style mix) over 32-bit words: a 64-bit digest. */
class DigestMixer {
  private first = fnvOffset32;
  private second = 0x9e3779b9;

  /** A safe integer, or null (as -1). */
  add(value: number | null): this {
    const number = value ?? -1;
    this.word(number | 0);
    return this.word(Math.floor(number / twoToThe32) | 0);
  }

  addAll(values: readonly number[]): this {
    this.add(values.length);
    for (const value of values) this.add(value);
    return this;
  }

  private word(word: number): this {
    this.first = fnv1aStep(this.first, word);
    let mixed = Math.imul(word, murmurMultiplier);
    mixed ^= mixed >>> 24;
    this.second = Math.imul(this.second, murmurMultiplier) ^ Math.imul(mixed, murmurMultiplier);
    return this;
  }

  hex(): string {
    return (this.first >>> 0).toString(16).padStart(8, '0') +
      (this.second >>> 0).toString(16).padStart(8, '0');
  }
}

const roleCodes: Readonly<Record<Role, number>> =
  { follower: 0, precandidate: 1, candidate: 2, leader: 3 };
const phaseCodes: Readonly<Record<ShardPhase, number>> = { serving: 0, frozen: 1, absent: 2 };

export function raftDigest(node: RaftNode<unknown, unknown>): string {
  const snapshot = node.snapshot;
  const mixer = new DigestMixer()
    .add(node.currentTerm).add(node.votedFor).add(roleCodes[node.role]).add(node.commitIndex)
    .add(node.leader).add(node.votesGranted).add(node.progress.length)
    .add(node.recentlyActive).add(node.readSequence).add(node.pendingReads.length)
    .add(snapshot?.lastIncludedIndex ?? 0).add(snapshot?.lastIncludedTerm ?? 0)
    .add(node.log.length).add(lastLogTerm(node));
  for (const progress of node.progress) {
    mixer.add(progress.state === 'replicate' ? 1 : 0).add(progress.probeSent ? 1 : 0)
      .add(progress.match).add(progress.next).add(progress.inflights.length);
  }
  return mixer.hex();
}

export type MachineState =
  | { readonly kind: 'group'; readonly state: GroupState }
  | { readonly kind: 'controller'; readonly state: ControllerState };

/** The chained digest after applying (or restoring) up to `index`. */
export function machineDigest(previous: string, index: number, machine: MachineState): string {
  const mixer = new DigestMixer()
    .add(parseInt(previous.slice(0, 8), 16)).add(parseInt(previous.slice(8), 16)).add(index);
  if (machine.kind === 'controller') {
    const { configs, current, next, nextClient } = machine.state;
    return mixer.add(configs.length).add(current).add(next?.num ?? null).add(nextClient).hex();
  }
  for (const shard of machine.state.shards) {
    mixer.add(phaseCodes[shard.phase]).add(shard.identity?.epoch ?? null)
      .add(shard.kv.size).add(shard.dedup.size);
    const staged = shard.staged;
    if (staged !== null) {
      mixer.add(staged.identity.epoch).add(fnv1a(staged.manifest.digest)).add(staged.parts)
        .add(staged.kv.size).add(staged.dedup.size);
    }
  }
  return mixer.add(machine.state.sessionFloor).hex();
}

/** The digest a machine chain starts from (a fresh start, before any apply). */
export const machineDigestStart = '0000000000000000';

export function driverDigest(driver: DriverState): string {
  const mixer = new DigestMixer().add(driver.num).add(driver.progress.length);
  for (const shard of driver.progress) {
    mixer.add(fnv1a(shard.step));
    if (shard.step === 'install') mixer.add(fnv1a(shard.image?.digest ?? '-'));
    if (shard.step === 'delete') mixer.add(fnv1a(shard.receipt.digest));
    if (shard.step === 'stage') {
      mixer.add(fnv1a(shard.manifest.digest)).add(shard.parts.length).add(shard.acknowledged);
    }
    if (shard.step === 'recover') addFacts(addFacts(mixer, shard.srcFacts), shard.dstFacts);
  }
  return mixer.hex();
}

/** A recovering shard's facts as far as reported: phase and the identities' epochs. */
function addFacts(mixer: DigestMixer, facts: ShardFacts | null): DigestMixer {
  if (facts === null) return mixer.add(null);
  return mixer.add(fnv1a(facts.phase)).add(facts.identity?.epoch ?? null)
    .add(facts.receipt === null ? null : fnv1a(facts.receipt.digest))
    .add(facts.tombstone?.epoch ?? null);
}
