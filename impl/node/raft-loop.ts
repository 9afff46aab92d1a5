/**
 * The event loop of one Raft replica (DESIGN §5; etcd's RawNode and Ready): one input at a
 * time goes into spec/raft's `step`, then the effects are performed in their order. The save
 * effects come first and are buffered in order; each says what waits for it (spec/raft's
 * SyncDuty, etcd's MustSync). A step with a `beforeSends` save awaits `storage.sync()` before
 * its other effects, so a vote, a term or an entry a follower acknowledges is on disk before
 * anyone hears of it. A leader's own append (`thenReport`) syncs while its AppendEntries
 * leave and it takes other inputs (dissertation §10.2.1); once it is durable the storage's
 * report is stepped as a `logDurable` input, and only then does the leader count its copy.
 * Client commands that arrive meanwhile wait and form the next batch. A commitIndex-only hard
 * state (`withNext`) starts no sync: the next one makes it durable, and applies and replies
 * do not wait for it.
 *
 * Every decision is the step function's; this loop only queues inputs, performs effects and
 * turns timer effects into timers. Client commands that arrive while a step or the leader's
 * append sync runs wait in a batch that becomes one `propose` input (group commit: one sync
 * for many). Peers' messages queued behind a step that syncs before its sends share its
 * sync (a follower syncs once for the appends that arrived during its last sync, etcd's
 * Ready); the simulator, mbt and replay run the same loop.
 * Reads go in as `readIndex` inputs (dissertation §6.4) and write nothing to the log.
 */
import { assert } from '../../spec/assert.js';
import { logDurableInput, mustReport, mustSyncBeforeSends } from '../../spec/raft/persistence.js';
import { step } from '../../spec/raft/step.js';
import type {
  Effect, IndexedEntry, Input, Persisted, RaftNode, RaftOptions, SaveEffect, Snapshot,
} from '../../spec/raft/types.js';
import type { Storage } from '../io/storage.js';
import { encodeFrame, type Stamp } from './wire.js';
import type { LoopContext } from './loop-context.js';
import { RaftTimers } from './raft-timers.js';

type Node = RaftNode<unknown, unknown>;
type RaftEffect = Effect<unknown, unknown>;
type RaftInput = Input<unknown, unknown>;
/** A step's effects, and its saves among them (buffered in the storage already). */
type Stepped = { readonly effects: RaftEffect[]; readonly saves: SaveEffect<unknown, unknown>[] };

/**
 * Where a proposed command went, as the step's `proposed` effect says: its log index and
 * term; null when `proposalRefused` (this node does not lead).
 */
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
  /** The node no longer leads `term` (the step's `leadershipLost`). */
  leadershipLost(term: number): void;
  /** The leader of `term` applied its own no-op: its state is the latest (`leaderReady`). */
  leaderReady(term: number): void;
  /** After every step, with the node before and after it. */
  afterStep(before: Node, after: Node, input: RaftInput, effects: RaftEffect[]): void;
  /**
   * Tracing: a sync starts; the callback it returns runs once the sync completed, when every
   * save of the steps so far is durable (before the effects that waited for it).
   */
  syncing?(): () => void;
  /** Tracing: the stamp of the next Raft send of the last step, as it leaves. */
  stampSend?(): Stamp;
}

/** Inputs waiting for the loop beyond which a peer's message is dropped (STYLE 7: bounded). */
export const messagesQueuedMax = 10_000;

/** Peers' messages queued behind a step that syncs, stepped before that one sync (bounded). */
export const messagesPerSyncMax = 64;

/** A peer's message may carry the sender's trace stamp (wire.ts Stamp). */
type QueueItem =
  | (Input<unknown, unknown> & { readonly stamp?: Stamp })
  | { readonly type: 'propose-batch' }
  | { readonly type: 'snapshot-due' };

export class RaftLoop {
  private node: Node;
  private queue: QueueItem[] = [];
  /** The position of the next item to run: an index, since shift() copies the array. */
  private head = 0;
  private batch: PendingProposal[] = [];
  /** The batch of the propose step being performed, until its `proposed` effect answers it. */
  private proposing: PendingProposal[] = [];
  private snapshotQueued = false;
  /** A leader's own append is syncing: proposals wait for it (group commit). */
  private appendSyncing = false;
  private batchWaiting = false;
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
        // Commands wait while the leader's last append syncs: they make the next batch.
        if (item.type === 'propose-batch') {
          if (this.appendSyncing && this.context.tuning.batchDuringAppendSync) {
            this.batchWaiting = true;
          }
          else await this.runBatch();
        }
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
    this.proposing = batch;
    await this.runInput({ type: 'propose', commands: batch.map((pending) => pending.command) });
    // Died before the effects (or a spec bug that answered nothing): nobody is told.
    this.proposing = [];
  }

  private async runSnapshot(): Promise<void> {
    this.snapshotQueued = false;
    // An index at or below the node's snapshot is the spec's no-op (handleSnapshotTaken).
    const { index, data } = this.hooks.snapshotPoint();
    await this.runInput({ type: 'snapshot', index, data });
  }

  /** One step and its effects. */
  private async runInput(input: Input<unknown, unknown>): Promise<void> {
    const { effects, saves } = this.stepInput(input);
    const report = mustReport(saves);
    if (mustSyncBeforeSends(saves)) {
      await this.runSyncedSteps(effects, report);
    } else if (report) {
      // §10.2.1: the leader's AppendEntries (its heartbeat soon) leave while its own append
      // syncs, and it keeps taking inputs; its report is stepped once the sync completed.
      this.appendSyncing = true;
      this.sync().then((durable) => {
        this.appendSyncing = false;
        if (this.context.isDead()) return;
        this.enqueue(durable);
        if (this.batchWaiting) {
          this.batchWaiting = false;
          this.enqueue({ type: 'propose-batch' });
        }
      }).catch((error: unknown) => this.context.fatal(error));
      this.performAll(effects);
    } else {
      this.performAll(effects);
    }
  }

  /** The step function on `input`: the node moves on, its saves are buffered in order. */
  private stepInput(input: RaftInput): Stepped {
    const before = this.node;
    const result = step(before, input, this.options);
    this.node = result.node;
    const effects = result.effects as RaftEffect[];
    this.hooks.afterStep(before, result.node, input, effects);
    const saves = effects.filter(isSave);
    saves.forEach((effect) => this.save(effect));
    return { effects, saves };
  }

  /**
   * A step whose saves precede its sends and the peers' messages queued behind it (at most
   * messagesPerSyncMax): each is stepped in turn and its saves buffered, one sync makes them all durable, then each step's effects are
   * performed in order (etcd's Ready: many messages, one fsync). A follower whose appends
   * arrive while it syncs thus syncs once for all of them instead of once each; no send
   * leaves before the saves of its step and of every step before it are durable.
   */
  private async runSyncedSteps(first: RaftEffect[], firstReports: boolean): Promise<void> {
    const steps = [first];
    let report = firstReports;
    while (steps.length < messagesPerSyncMax &&
      this.queue[this.head]?.type === 'message' && !this.context.isDead()) {
      const next = this.stepInput(this.queue[this.head++] as RaftInput);
      steps.push(next.effects);
      report ||= mustReport(next.saves);
    }
    // Nothing else runs on this node until its answers are durable: the writes may block.
    const durable = await this.sync(true);
    if (this.context.isDead()) return;
    for (const effects of steps) {
      this.performAll(effects);
      if (this.context.isDead()) return;
    }
    if (report) await this.runInput(durable);
  }

  /** The effects of a step but its saves, in order (the timers among them, spec's timers.ts). */
  private performAll(effects: readonly RaftEffect[]): void {
    for (const effect of effects) {
      if (isSave(effect)) continue;
      this.perform(effect);
      if (this.context.isDead()) return;
    }
  }

  /**
   * Makes every buffered save durable; returns the storage's report of what it made durable
   * (the log as it stood when the sync began, its last entry: `logDurable`, etcd's
   * MsgStorageAppendResp). The spec ignores a report its log no longer matches.
   */
  private async sync(blocking = false): Promise<RaftInput> {
    const durable = logDurableInput(this.node);
    const synced = this.hooks.syncing?.();
    await this.storage.sync(blocking);
    if (!this.context.isDead()) synced?.();
    return durable;
  }

  private save(effect: RaftEffect): void {
    switch (effect.type) {
      case 'saveSnapshot':
        this.storage.saveSnapshot(effect.snapshot);
        return;
      case 'saveEntries':
        this.storage.appendEntries(effect.fromIndex, effect.entries);
        return;
      case 'saveHardState':
        if (this.context.faults.skipVoteSave && effect.hardState.votedFor !== null) return;
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
        const stamp = this.hooks.stampSend?.();
        this.context.transport.send(to, encodeFrame(stamp === undefined
          ? { kind: 'raft', message: effect.message }
          : { kind: 'raft', message: effect.message, stamp }));
        return;
      }
      case 'restoreSnapshot':
        this.hooks.restoreSnapshot(effect.snapshot);
        return;
      case 'apply':
        effect.entries.forEach((entry) => this.hooks.applyEntry(entry));
        return;
      case 'proposed':
        this.answerProposals({ index: effect.index, term: effect.term }, effect.count);
        return;
      case 'proposalRefused':
        this.answerProposals(null, this.proposing.length);
        return;
      case 'leadershipLost':
        this.hooks.leadershipLost(effect.term);
        return;
      case 'leaderReady':
        this.hooks.leaderReady(effect.term);
        return;
      case 'sendSoon':
        this.timers.sendSoon(effect.peers);
        return;
      case 'setTimer':
        this.timers.set(effect.timer);
        return;
      case 'cancelTimer':
        this.timers.cancel(effect.timer);
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

  /** The batch being proposed learns where each command landed (`first`: the first's). */
  private answerProposals(first: Proposed, count: number): void {
    const batch = this.proposing;
    this.proposing = [];
    assert(batch.length > 0 && batch.length === count,
      `a proposal effect for ${count} commands, ${batch.length} proposed`);
    batch.forEach((pending, offset) => pending.onProposed(first === null ? null
      : { index: first.index + offset, term: first.term }));
  }
}

function isSave(effect: RaftEffect): effect is SaveEffect<unknown, unknown> {
  return effect.type === 'saveSnapshot' || effect.type === 'saveEntries' ||
    effect.type === 'saveHardState';
}
