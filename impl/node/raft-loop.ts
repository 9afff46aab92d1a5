/**
 * The event loop of one Raft replica (DESIGN §5; etcd's RawNode and Ready): one input at a
 * time goes into spec/raft's `step`, then the effects are performed in their order. The save
 * effects come first and are made durable (`storage.sync()`) before any other effect, so a
 * vote, a term or an entry is on disk before anyone hears of it (spec/raft/types.ts Effect).
 *
 * Every decision is the step function's; this loop only queues inputs, performs effects and
 * turns timer effects into timers. Client commands that arrive while a step runs wait in a
 * batch that becomes one `propose` input at the next turn (group commit: one sync for many).
 * Reads go in as `readIndex` inputs (dissertation §6.4) and write nothing to the log. A
 * leader sends a batch's AppendEntries while its own write syncs (§10.2.1). A hard state
 * that only advances commitIndex is written with the next sync, not waited for.
 */
import { assert } from '../../spec/assert.js';
import { lastLogIndex, snapshotIndex } from '../../spec/raft/log.js';
import { step } from '../../spec/raft/step.js';
import type {
  Effect, HardState, IndexedEntry, Input, Persisted, RaftNode, RaftOptions, Snapshot,
} from '../../spec/raft/types.js';
import type { Storage } from '../io/storage.js';
import { encodeFrame } from './wire.js';
import type { LoopContext } from './loop-context.js';
import { RaftTimers } from './raft-timers.js';

type Node = RaftNode<unknown, unknown>;
type RaftEffect = Effect<unknown, unknown>;
type RaftInput = Input<unknown, unknown>;

/** Where a proposed command went: its log index and term, or null (not the leader). */
export type Proposed = { readonly index: number; readonly term: number } | null;

interface PendingProposal {
  readonly command: unknown;
  readonly onProposed: (proposed: Proposed) => void;
}

/** What the loop asks of the replica that owns it (the state machine and the server). */
export interface LoopHooks {
  applyEntry(entry: IndexedEntry<unknown>): void;
  restoreSnapshot(snapshot: Snapshot<unknown>): void;
  /** The state machine's state and applied index, for a snapshot input. */
  snapshotPoint(): { readonly index: number; readonly data: unknown };
  /** ReadIndex: read `requestId` may be served at `index` (null: refused, not leading). */
  readConfirmed(requestId: number, index: number | null): void;
  /** After every step, with the node before and after it. */
  afterStep(before: Node, after: Node, input: RaftInput, effects: RaftEffect[]): void;
}

/** Inputs waiting for the loop beyond which a peer's message is dropped (STYLE 7: bounded). */
export const messagesQueuedMax = 10_000;

type QueueItem =
  | Input<unknown, unknown>
  | { readonly type: 'propose-batch' }
  | { readonly type: 'snapshot-due' };

export class RaftLoop {
  private node: Node;
  private queue: QueueItem[] = [];
  /** The position of the next item to run: an index, since shift() copies the array. */
  private head = 0;
  private batch: PendingProposal[] = [];
  private snapshotQueued = false;
  /** The hard state storage holds (or will hold at the next sync). */
  private savedHardState: HardState | null = null;
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  private readonly timers: RaftTimers;

  constructor(
    initial: Node,
    private readonly context: LoopContext,
    private readonly storage: Storage<unknown, unknown>,
    private readonly options: RaftOptions,
    private readonly hooks: LoopHooks,
  ) {
    this.node = initial;
    this.timers = new RaftTimers(context, (input) => this.enqueue(input));
  }

  get raft(): Node {
    return this.node;
  }

  /** The first step: the node restarts from what storage holds (step 0 of an incarnation). */
  restart(persisted: Persisted<unknown, unknown>): Promise<void> {
    this.savedHardState = persisted.hardState;
    this.enqueue({ type: 'restart', persisted });
    return this.drain();
  }

  enqueue(item: QueueItem): void {
    if (this.context.isDead()) return;
    if (item.type === 'message' && this.queue.length - this.head >= messagesQueuedMax) {
      // Peers outrun the disk: drop, as a network would; Raft resends (paper §5.3).
      this.context.log(`${this.context.name}: input queue full, dropped a raft message`);
      return;
    }
    this.queue.push(item);
    void this.drain();
  }

  /** Queues a client command for the next propose batch. */
  propose(command: unknown, onProposed: (proposed: Proposed) => void): void {
    if (this.context.isDead()) return;
    this.batch.push({ command, onProposed });
    // Pushed first: enqueue may run the batch at once when the loop is idle.
    if (this.batch.length === 1) this.enqueue({ type: 'propose-batch' });
  }

  /** Asks for a snapshot input at the next turn (once until it is taken). */
  requestSnapshot(): void {
    if (this.snapshotQueued) return;
    this.snapshotQueued = true;
    this.enqueue({ type: 'snapshot-due' });
  }

  /** Resolves once the queue is empty (or the replica died). */
  drain(): Promise<void> {
    if (!this.running) {
      this.running = true;
      this.idle = this.run();
    }
    return this.idle;
  }

  /**
   * Runs queued items until none is left; items queued meanwhile are taken in order. `running`
   * is cleared in the same synchronous stretch as the last emptiness check, so an item queued
   * after it starts a new run. A step that throws is a bug in spec/ or here: fatal.
   */
  private async run(): Promise<void> {
    try {
      while (this.head < this.queue.length && !this.context.isDead()) {
        const item = this.queue[this.head++]!;
        if (item.type === 'propose-batch') await this.runBatch();
        else if (item.type === 'snapshot-due') await this.runSnapshot();
        else await this.runInput(item);
      }
    } catch (error) {
      this.context.fatal(error);
    }
    this.queue = [];
    this.head = 0;
    this.running = false;
  }

  private async runBatch(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    const before = this.node;
    await this.runInput({ type: 'propose', commands: batch.map((pending) => pending.command) },
      true, (after) => {
        // handlePropose appends the batch at the end of a leader's log, in order.
        const appended = before.role === 'leader' && after.role === 'leader' &&
          after.currentTerm === before.currentTerm;
        const first = lastLogIndex(after) - batch.length + 1;
        batch.forEach((pending, offset) => pending.onProposed(appended
          ? { index: first + offset, term: after.currentTerm } : null));
      });
  }

  private async runSnapshot(): Promise<void> {
    this.snapshotQueued = false;
    const { index, data } = this.hooks.snapshotPoint();
    if (index <= snapshotIndex(this.node)) return;
    await this.runInput({ type: 'snapshot', index, data });
  }

  /**
   * One step and its effects. `beforeEffects` runs between the step and its effects (the
   * proposals learn their indexes before an apply of this very step can answer them).
   * `replicateBeforeSync`: a leader's proposal step may send its AppendEntries while its own
   * write is synced (heartbeatBeforeSync).
   */
  private async runInput(
    input: Input<unknown, unknown>,
    replicateBeforeSync = false,
    beforeEffects?: (after: Node) => void,
  ): Promise<void> {
    const before = this.node;
    const result = step(before, input, this.options);
    this.node = result.node;
    let effects = result.effects as RaftEffect[];
    beforeEffects?.(result.node);
    this.hooks.afterStep(before, result.node, input, effects);
    const saves = effects.filter(isSave);
    let held: RaftEffect[] = [];
    if (saves.length > 0 && saves.every((effect) => this.onlyCommitIndex(effect))) {
      // Buffered: the next sync makes it durable. A commit index is recoverable (a restarted
      // node learns it again from the leader), so replies need not wait for it on disk.
      saves.forEach((effect) => this.save(effect));
    } else if (saves.length > 0) {
      saves.forEach((effect) => this.save(effect));
      const onlyEntries = saves.every((effect) => effect.type === 'saveEntries');
      const heartbeat = replicateBeforeSync && onlyEntries ? this.heartbeatBeforeSync() : null;
      if (heartbeat !== null) {
        held = heartbeat;
        // The heartbeat just run is the one the proposal's send-soon timer asked for.
        effects = effects.filter((effect) => !isHeartbeatTimer(effect));
      }
      await this.storage.sync();
      if (this.context.isDead()) return;
    }
    let electionTimerSet = false;
    for (const effect of [...effects, ...held]) {
      if (isSave(effect)) continue;
      if (effect.type === 'setTimer' && effect.timer === 'election') electionTimerSet = true;
      this.perform(effect);
      if (this.context.isDead()) return;
    }
    // The election timer keeps running while leading: CheckQuorum needs its timeouts.
    if (input.type === 'electionTimeout' && !electionTimerSet) this.timers.armElection();
    this.timers.afterStep(this.node.role);
  }

  /**
   * Raft dissertation §10.2.1: the leader writes its log in parallel with replicating it.
   * Right after a proposal step, while its entries are being synced, the leader takes a
   * heartbeat input and sends that step's AppendEntries at once. This is safe because the
   * leader counts itself towards a commit only in a later step, and the loop starts no
   * later step before the sync completes; a follower still answers only once its own write
   * is durable. Only the sends leave early; the heartbeat's other effects wait for the sync
   * (returned). Null, and nothing happened, when the heartbeat would save something too (then
   * its sends must wait) or the node does not lead a group of several.
   */
  private heartbeatBeforeSync(): RaftEffect[] | null {
    const node = this.node;
    if (node.role !== 'leader' || node.clusterSize < 2) return null;
    const input: RaftInput = { type: 'heartbeat' };
    const result = step(node, input, this.options);
    const effects = result.effects as RaftEffect[];
    if (effects.some(isSave)) return null;
    this.node = result.node;
    this.hooks.afterStep(node, result.node, input, effects);
    for (const effect of effects) {
      if (effect.type === 'send') this.perform(effect);
    }
    return effects.filter((effect) => effect.type !== 'send');
  }

  /** Whether `effect` saves a hard state that differs from the last saved in commitIndex only. */
  private onlyCommitIndex(effect: RaftEffect): boolean {
    if (effect.type !== 'saveHardState') return false;
    const last = this.savedHardState;
    return last !== null && effect.hardState.currentTerm === last.currentTerm &&
      effect.hardState.votedFor === last.votedFor;
  }

  private save(effect: RaftEffect): void {
    switch (effect.type) {
      case 'saveSnapshot':
        this.storage.saveSnapshot(effect.snapshot);
        return;
      case 'saveEntries':
        this.storage.appendEntries(effect.fromIndex, effect.entries.map((entry) =>
          entry.command === null ? { term: entry.term } : entry));
        return;
      case 'saveHardState':
        this.savedHardState = effect.hardState;
        this.storage.saveHardState(effect.hardState);
        return;
      default:
        assert(false, `not a save effect: ${effect.type}`);
    }
  }

  private perform(effect: RaftEffect): void {
    switch (effect.type) {
      case 'send': {
        const to = this.context.peers[effect.to];
        assert(to !== undefined, `no peer ${effect.to}`);
        this.context.transport.send(to, encodeFrame({ kind: 'raft', message: effect.message }));
        return;
      }
      case 'restoreSnapshot':
        this.hooks.restoreSnapshot(effect.snapshot);
        return;
      case 'apply':
        effect.entries.forEach((entry) => this.hooks.applyEntry(entry));
        return;
      case 'setTimer':
        if (effect.timer === 'election') this.timers.armElection();
        else this.timers.heartbeatSoon();
        return;
      case 'readReady':
        this.hooks.readConfirmed(effect.requestId, effect.index);
        return;
      case 'readRefused':
        this.hooks.readConfirmed(effect.requestId, null);
        return;
      default:
        assert(false, `unexpected effect ${effect.type}`);
    }
  }
}

function isHeartbeatTimer(effect: RaftEffect): boolean {
  return effect.type === 'setTimer' && effect.timer === 'heartbeat';
}

function isSave(effect: RaftEffect): boolean {
  return effect.type === 'saveSnapshot' || effect.type === 'saveEntries' ||
    effect.type === 'saveHardState';
}
