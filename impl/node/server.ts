/**
 * One server of the cluster (DESIGN §2 and §5): a Raft replica of the controller group or of
 * one replica group, whose every state change is a call of a spec function. raft-loop.ts runs
 * the Raft step function over the injected storage, transport and timers; replica-machine.ts
 * applies committed commands; driver-host.ts runs the migration driver at the controller
 * leader; requests.ts answers clients. This file wires them together and owns the lifecycle:
 * start (load storage, restart Raft from it), stop (clean), crash (nothing more happens).
 * What a Raft step decides (a lost leadership, a ready leader) reaches it as the step's
 * effects; its own reads of the node's role and term only report (status, view).
 */
import { assert } from '../../spec/assert.js';
import { initialNode } from '../../spec/raft/node.js';
import type {
  Effect, IndexedEntry, Input, RaftNode, Snapshot,
} from '../../spec/raft/types.js';
import type { ControllerCommandResult } from '../../spec/controller/state-machine.js';
import type { GroupResult } from '../../spec/group/types.js';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import { NodeTracer } from '../trace/node-tracer.js';
import type { NodeSetup } from '../trace/schema.js';
import type { MachineState } from '../trace/state-digest.js';
import { describeRecovery } from '../wal/errors.js';
import { segmentBytesDefault, WalStorage } from '../wal/wal-storage.js';
import type {
  Server, ServerOptions, ServerRole, ServerStatus, ServerView,
} from './api.js';
import { DriverHost } from './driver-host.js';
import { mapJsonCodec } from './json-maps.js';
import { mapJsonSnapshotCodec } from './json-pieces.js';
import type { LoopContext } from './loop-context.js';
import { PendingReads } from './pending-reads.js';
import { PendingReplies } from './pending-replies.js';
import { noShellFaults } from './shell-faults.js';
import { RaftLoop } from './raft-loop.js';
import {
  controllerMachine, groupMachine, machineShards, type ReplicaMachine,
} from './replica-machine.js';
import { firstRequestId, RequestChannel } from './request-channel.js';
import { handleFrame, type RequestHost } from './requests.js';
import { raftOptionsOf, resolveTuning } from './tuning.js';
import { isSnapshotDue } from './snapshot-policy.js';
import { recordedResult } from '../../spec/group/client-requests.js';
import { admitRequest } from '../../spec/group/retry-admission.js';
import { HeldRequests } from './held-requests.js';
import { clientFrameBytes, fittingReply, peerFrameBytes } from './frame-limits.js';
import { encodeFrame, type ReplyBody } from './wire.js';

type Node = RaftNode<unknown, unknown>;

/**
 * A snapshot that comes due while one is prepared is taken in the step once the log holds this
 * many times --max-raft-state: half CONTRACT's 8 x, room for what arrives until it is durable.
 */
const urgentSnapshotFactor = 4;
type RaftInput = Input<unknown, unknown>;
type RaftEffect = Effect<unknown, unknown>;

/** Where `name` sits in the layout: its Raft group's members and its own Raft id. */
function placement(options: ServerOptions): { peers: readonly string[]; gid: number | null } {
  const { layout, name } = options;
  if (layout.controllers.includes(name)) return { peers: layout.controllers, gid: null };
  for (const [gid, servers] of Object.entries(layout.groups)) {
    if (servers.includes(name)) return { peers: servers, gid: Number(gid) };
  }
  throw new Error(`${name} is in no Raft group of the layout`);
}

export class NodeServer implements Server {
  readonly name: string;
  /** The migration driver, at controller replicas (read: `replay --runtime` compares it). */
  readonly driver: DriverHost | null;
  private readonly machine: ReplicaMachine;
  private readonly context: LoopContext;
  private readonly storage: WalStorage<unknown, unknown>;
  private readonly replies: PendingReplies;
  private readonly reads: PendingReads;
  /** Client requests in the log, not applied yet (what a retry may wait for). */
  private readonly held = new HeldRequests();
  private readonly channel: RequestChannel;
  private readonly tracer: NodeTracer | null;
  private loop: RaftLoop | null = null;
  private appliedIndex = 0;
  /** The term of the entry at appliedIndex (a prepared snapshot's lastIncludedTerm). */
  private appliedTerm = 0;
  /** A snapshot is being prepared in the background; another came due meanwhile. */
  private preparing = false;
  private dueWhilePreparing = false;
  /** The point of the last prepared snapshot, which the next snapshot input takes. */
  private preparedPoint: { readonly index: number; readonly data: unknown } | null = null;
  private stepCount = 0;
  private phase: 'new' | 'starting' | 'running' | 'stopped' | 'crashed' = 'new';

  constructor(private readonly options: ServerOptions) {
    this.name = options.name;
    const { peers, gid } = placement(options);
    const environment = options.environment;
    const tuning = resolveTuning(options.tuning);
    const faults = { ...noShellFaults, ...options.bugs?.shell };
    this.replies = new PendingReplies(faults.replyOverwritten);
    this.reads = new PendingReads();
    this.context = {
      name: options.name, peers, tuning, faults,
      transport: environment.transport, timers: environment.timers,
      clock: environment.clock, random: environment.random, log: environment.log,
      isDead: () => this.phase === 'stopped' || this.phase === 'crashed',
      fatal: (error) => this.fail(error),
    };
    const shardCount = options.layout.shardCount;
    this.machine = gid === null
      ? controllerMachine(shardCount, options.bugs?.controller)
      : groupMachine(gid, shardCount,
        { maxValueBytes: tuning.maxValueBytes, imagePartBytes: tuning.imagePartBytes },
        options.bugs?.migration);
    const bound = tuning.maxRaftStateBytes;
    this.storage = new WalStorage<unknown, unknown>({
      fileSystem: environment.fileSystem,
      directory: environment.directory,
      commandCodec: mapJsonCodec<unknown>(),
      snapshotCodec: mapJsonSnapshotCodec<unknown>(),
      segmentBytes: bound === null ? segmentBytesDefault : Math.min(bound, segmentBytesDefault),
      onRecovery: (event) => environment.log(`${this.name}: ${describeRecovery(event)}`),
    });
    const raftOptions = raftOptionsOf(tuning);
    const setup: NodeSetup = {
      peers, id: peers.indexOf(this.name), gid, shardCount, raftOptions,
      maxValueBytes: tuning.maxValueBytes,
    };
    this.tracer = options.trace === undefined ? null
      : new NodeTracer(this.name, options.trace, setup);
    const tracer = this.tracer;
    this.channel = new RequestChannel(environment.transport, environment.timers, 'request-',
      firstRequestId(environment.clock.now()),
      tracer === null ? undefined : () => tracer.stampSend(false));
    const machine = this.machine;
    this.driver = machine.kind !== 'controller' ? null : new DriverHost({
      context: this.context, layout: options.layout, channel: this.channel,
      bugs: { ...noMigrationBugs, ...options.bugs?.migration },
      controllerState: () => machine.state,
      // The driver learns what applied through `applied`, not through a reply.
      propose: (command) => this.loop?.propose(command, () => undefined),
      ...(tracer === null ? {} : {
        onStep: (input, step, driver) => tracer.driverStep(input, step, driver),
      }),
    });
  }

  get raft(): RaftLoop | null {
    return this.loop;
  }

  async start(): Promise<void> {
    assert(this.phase === 'new', `start() on a ${this.phase} server`);
    this.phase = 'starting';
    const loaded = await this.storage.load();
    if (this.context.isDead()) return;
    const peers = this.context.peers;
    const initial: Node = initialNode(peers.indexOf(this.name), peers.length);
    this.loop = new RaftLoop(initial, this.context, this.storage, {
      ...raftOptionsOf(this.context.tuning),
      ...(this.options.bugs?.raft === undefined ? {} : { bugs: this.options.bugs.raft }),
    }, {
      applyEntry: (entry) => this.applyEntry(entry),
      restoreSnapshot: (snapshot) => this.restoreSnapshot(snapshot),
      snapshotPoint: () => this.takeSnapshotPoint(),
      readConfirmed: (requestId, index) => this.reads.confirmed(requestId, index),
      leadershipLost: () => {
        this.replies.failAll(this.leaderName());
        this.driver?.stop();
      },
      // Its own no-op applied, a leader's applied state is the latest: the driver starts.
      leaderReady: () => this.driver?.start(),
      afterStep: (_before, after, input, effects) => this.afterStep(after, input, effects),
      ...(this.tracer === null ? {} : {
        syncing: () => this.tracer!.syncing(),
        stampSend: () => this.tracer!.stampSend(true),
      }),
    });
    const host = this.requestHost(this.loop);
    this.context.transport.onFrame((from, frame) => {
      if (!this.context.isDead()) return handleFrame(host, from, frame);
    });
    const { hardState, snapshot, entries } = loaded;
    this.held.saved((snapshot?.lastIncludedIndex ?? 0) + 1, entries);
    await this.loop.restart({ hardState, snapshot, entries });
    if (!this.context.isDead()) this.phase = 'running';
  }

  async stop(): Promise<void> {
    if (this.phase === 'stopped' || this.phase === 'crashed') return;
    const draining = this.loop?.drain();
    this.phase = 'stopped';
    this.shutDownVolatile();
    await draining?.catch(() => undefined);
    await this.storage.close();
  }

  crash(): void {
    if (this.phase === 'crashed') return;
    this.phase = 'crashed';
    this.shutDownVolatile();
  }

  private shutDownVolatile(): void {
    this.context.timers.cancelAllTimers();
    this.driver?.stop();
    this.channel.abandon();
  }

  private fail(error: unknown): void {
    const reason = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.context.log(`${this.name}: fatal: ${reason}`);
    this.crash();
    this.options.onFatal?.(error);
  }

  /** The leader this server knows of in its term (itself when leading), named for clients. */
  leaderName(): string | null {
    const leader = this.loop?.raft.leader ?? null;
    return leader === null ? null : (this.context.peers[leader] ?? null);
  }

  status(): ServerStatus | null {
    if (this.phase !== 'running' || this.loop === null) return null;
    const raft = this.loop.raft;
    const role: ServerRole = raft.role === 'precandidate' ? 'candidate' : raft.role;
    const sizes = this.storage.sizes();
    return {
      name: this.name, role, term: raft.currentTerm, commitIndex: raft.commitIndex,
      appliedIndex: this.appliedIndex, logBytes: sizes.logBytes,
      snapshotBytes: sizes.snapshotBytes, shards: machineShards(this.machine),
    };
  }

  view(): ServerView | null {
    if (this.phase !== 'running' || this.loop === null) return null;
    const common = { name: this.name, raft: this.loop.raft, appliedIndex: this.appliedIndex };
    return this.machine.kind === 'controller'
      ? { kind: 'controller', ...common, state: this.machine.state }
      : { kind: 'group', gid: this.machine.gid, ...common, state: this.machine.state };
  }

  private applyEntry(entry: IndexedEntry<unknown>): void {
    const expected = this.appliedIndex + 1;
    assert(entry.index === expected, `applying ${entry.index}, expected ${expected}`);
    this.appliedIndex = entry.index;
    this.appliedTerm = entry.term;
    this.held.applied(entry.index, entry.command);
    let freed = false;
    if (entry.command === null) {
      this.traceApply(entry, undefined);
      this.replies.applied(entry.index, entry.term, { type: 'wrong-leader', leader: null });
    } else if (this.machine.kind === 'controller') {
      const applied = this.machine.apply(entry.command);
      this.traceApply(entry, applied.result);
      this.replies.applied(entry.index, entry.term, applied.reply);
      const type = (entry.command as { type?: unknown }).type;
      if (type === 'plan' || type === 'publish') this.driver?.applied(applied.result);
    } else {
      const applied = this.machine.apply(entry.command);
      this.traceApply(entry, applied.result);
      this.replies.applied(entry.index, entry.term, applied.reply);
      freed = (entry.command as { type?: unknown }).type === 'delete';
    }
    this.reads.applied(this.appliedIndex);
    // A delete frees a moved-out shard, which leaves the disk only with the next snapshot
    // (the log and the last snapshot still hold it); reads no longer write the log, so no
    // later entry may come to ask for one (CONTRACT: kept bytes after deletes).
    const bound = this.context.tuning.maxRaftStateBytes;
    if (isSnapshotDue(bound, this.storage.sizes(), freed)) this.snapshotDue();
  }

  /**
   * A snapshot of the applied state is due. With `environment.pause` the storage prepares it
   * in the background first (serialised and fsynced between pauses), and only then is the
   * snapshot input queued, taking the prepared point: the state is immutable, later applies
   * make new objects. One preparation at a time; one that came due meanwhile follows it,
   * unless the log already holds more than half what CONTRACT allows (urgentSnapshotFactor):
   * then the next step takes one at once, serialised and written in the step as without
   * `pause`.
   */
  private snapshotDue(): void {
    const pause = this.options.environment.pause;
    if (pause === undefined) return this.loop!.requestSnapshot();
    if (this.preparing) {
      const bound = this.context.tuning.maxRaftStateBytes ?? 0;
      if (this.storage.sizes().logBytes > urgentSnapshotFactor * bound) this.loop!.requestSnapshot();
      this.dueWhilePreparing = true;
      return;
    }
    this.preparing = true;
    const point = { index: this.appliedIndex, data: this.machine.state };
    const snapshot = {
      lastIncludedIndex: point.index, lastIncludedTerm: this.appliedTerm, data: point.data,
    };
    this.storage.prepareSnapshot(snapshot, pause).then(() => {
      this.preparing = false;
      if (this.context.isDead()) return;
      this.preparedPoint = point;
      this.loop!.requestSnapshot();
      if (!this.dueWhilePreparing) return;
      this.dueWhilePreparing = false;
      if (this.appliedIndex > point.index) this.snapshotDue();
    }, (error: unknown) => {
      if (!this.context.isDead()) this.context.fatal(error);
    });
  }

  /** What the snapshot input takes: the prepared point if there is one, else the applied one. */
  private takeSnapshotPoint(): { readonly index: number; readonly data: unknown } {
    const prepared = this.preparedPoint;
    this.preparedPoint = null;
    return prepared ?? { index: this.appliedIndex, data: this.machine.state };
  }

  /**
   * A linearizable read (dissertation §6.4) without a log entry: `serve` runs once a quorum
   * confirmed this leader after the read arrived and the state machine applied the commit
   * index of that moment; `refuse` when the step refuses it (not leading) or too many wait.
   */
  private readThroughIndex(loop: RaftLoop, serve: () => void, refuse: () => void): void {
    if (this.context.faults.readBeforeApply) return serve();
    const requestId = this.reads.register((index) => {
      if (index === null) return refuse();
      this.reads.whenApplied(index, this.appliedIndex, serve);
    });
    if (requestId === null) return refuse();
    loop.enqueue({ type: 'readIndex', requestId });
  }

  private traceApply(
    entry: IndexedEntry<unknown>, result: GroupResult | ControllerCommandResult | undefined,
  ): void {
    this.tracer?.machineStep({ type: 'apply', index: entry.index, term: entry.term }, result,
      this.machineState());
  }

  private machineState(): MachineState {
    return this.machine.kind === 'controller'
      ? { kind: 'controller', state: this.machine.state }
      : { kind: 'group', state: this.machine.state };
  }

  private restoreSnapshot(snapshot: Snapshot<unknown>): void {
    assert(snapshot.lastIncludedIndex >= this.appliedIndex, 'a snapshot never goes back');
    this.machine.state = snapshot.data as never;
    const off = this.context.faults.snapshotIndexOff ? 1 : 0;
    this.appliedIndex = snapshot.lastIncludedIndex - off;
    this.appliedTerm = snapshot.lastIncludedTerm;
    this.held.restored(snapshot.lastIncludedIndex);
    this.tracer?.machineStep({ type: 'restore', index: snapshot.lastIncludedIndex }, undefined,
      this.machineState());
    this.reads.applied(this.appliedIndex);
  }

  /** What requests.ts may ask of this server (its frames arrive once the loop exists). */
  private requestHost(loop: RaftLoop): RequestHost {
    const { context, options, tracer } = this;
    return {
      name: this.name, peers: context.peers, machine: this.machine, tuning: context.tuning,
      log: (line) => context.log(line),
      received: (stamp) => tracer?.receive(stamp),
      deliverRaft: (input) => loop.enqueue(input),
      requestAnswered: (id, body) => this.channel.handleReply(id, body),
      reply: (to, id, body) => {
        if (context.isDead()) return;
        const stamp = tracer?.stampSend(false);
        const frame = (answer: ReplyBody) => encodeFrame(stamp === undefined
          ? { kind: 'reply', id, body: answer } : { kind: 'reply', id, body: answer, stamp });
        const bytes = fittingReply(frame(body), this.replyLimitBytes(to),
          (error) => frame({ type: 'refused', error }));
        context.transport.send(to, bytes);
      },
      isAdmin: (from) => options.isAdmin(from),
      isController: (from) => options.layout.controllers.includes(from),
      status: () => this.status(),
      propose: (command, onProposed) => loop.propose(command, onProposed),
      readThroughIndex: (serve, refuse) => this.readThroughIndex(loop, serve, refuse),
      awaitApply: (index, term, reply) => this.replies.add(index, term, reply),
      admission: (request) => {
        const machine = this.machine;
        const recorded = machine.kind === 'group' ? recordedResult(machine.state, request) : null;
        return admitRequest(recorded, this.held.get(request.client), request,
          loop.raft.role === 'leader');
      },
      held: this.held,
      leaderName: () => this.leaderName(),
    };
  }

  /** The largest reply `to` accepts: a server's peer frame, else a client's (frame-limits). */
  private replyLimitBytes(to: string): number {
    const { layout } = this.options;
    const server = layout.controllers.includes(to) ||
      Object.values(layout.groups).some((servers) => servers.includes(to));
    const tuning = this.context.tuning;
    return server ? peerFrameBytes(tuning) : clientFrameBytes(tuning);
  }

  private afterStep(after: Node, input: RaftInput, effects: unknown[]): void {
    for (const effect of effects as readonly RaftEffect[]) {
      if (effect.type === 'saveEntries') this.held.saved(effect.fromIndex, effect.entries);
    }
    this.tracer?.raftStep(input, after, effects as readonly RaftEffect[]);
    // The spec's own values, immutable: no JSON copy of every step (mbt steps all of them).
    this.options.onStep?.({ node: this.name, step: this.stepCount++, input,
      effects: effects.slice() });
  }
}

export function createServer(options: ServerOptions): Server {
  return new NodeServer(options);
}
