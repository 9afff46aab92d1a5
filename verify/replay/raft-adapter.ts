/**
 * The `raft` model in the runtime: N servers of one Raft group (gid 1, `g1-0..`), each a real
 * node shell. An action becomes the one input the model gives its node, through the path the
 * runtime itself uses:
 * - Timeout(i) fires i's election timer; Heartbeat(i, j) fires i's heartbeat timer. The
 *   runtime's heartbeat contacts every peer, not only j: the frames to the others stay held
 *   and are delivered only if a later step delivers an equal message (the node's state is the
 *   same either way: sending changes nothing in it).
 * - Deliver / Duplicate / Drop take the held frame that carries the envelope's message.
 * - ClientRequest(i, v) sends a key/value request frame to i (a put whose value is v), which
 *   the server proposes as the runtime does; the model's command v is that value.
 * - Restart(i) crashes i's process and disk, and starts a new process from the disk.
 * - CompactLog(i) asks i's loop for a snapshot of its state machine at its applied index, as
 *   the shell does past --max-raft-state. The model's snapshot data is the list of values
 *   applied up to there: the replay notes that list for each snapshot taken (by index and
 *   term) and reads every runtime snapshot (in a node, on its disk, in a message) as it.
 * - ReadIndex(i) sends a get to i, which the shell reads through ReadIndex: the runtime's
 *   request ids (one counter per incarnation) are read as the model's (one per behaviour).
 * Every reply the servers send the client is checked as it is held: a write is acknowledged
 * only for the entry it was proposed as (the spec committed that index in that term), and a
 * read only after the spec's step released it (readReady).
 *
 * The runtime's state is read back as the model's: the servers' Raft nodes (commands mapped
 * back to values), what each node's write-ahead log holds (read as a restart reads it), each
 * application's applied values (from the apply effects the shell performed), and the
 * proof-only history the model's own recordHistory derives from the nodes before and after
 * every step. The bag of messages is not compared: the runtime holds more frames than the
 * model (a heartbeat's extra ones), and a frame's presence is checked when a step takes it.
 */
import type { Params } from '../../checker/model.js';
import { samePersisted } from '../../models/raft/codec.js';
import { bugSwitches } from '../../spec/bug-catalog.js';
import { raftBugNames } from '../../spec/raft/bugs.js';
import { recordDisruption, recordHistory, type RaftAction } from '../../models/raft/model.js';
import type {
  ModelCommand, ModelData, ModelEnvelope, ModelNode, ModelPersisted, RaftModelState,
} from '../../models/raft/model-state.js';
import { termAt } from '../../spec/raft/log.js';
import { logEntriesArray, logEntriesOf } from '../../spec/raft/log-entries.js';
import type { RaftNode, Snapshot } from '../../spec/raft/types.js';
import type { ClientRequest } from '../../spec/group/types.js';
import type { ClusterLayout, StepRecord } from '../../impl/node/api.js';
import type { ShellFaults } from '../../impl/node/shell-faults.js';
import { RuntimeDivergence, type RuntimeAdapter } from './adapter.js';
import type { HeldFrame } from './held-network.js';
import { ReplayCluster } from './replay-cluster.js';

const gid = 1;
const clientName = 'client';

/** The key every replayed client request writes (any key: the group serves no shard). */
const requestKey = 'v';

const evaluated = [
  'ElectionSafety', 'LogMatching', 'LeaderCompleteness', 'StateMachineSafety',
  'LeaderAppendOnly', 'CommittedDurable', 'AppliedCommitted', 'AppliedUpToCommit', 'AppliedOnce',
  'CommitMonotonic', 'LinearizableReads', 'NoTermRaisedAlone', 'LeaseRespected',
  'ProgressConsistent',
];

/** The model's value of a command the runtime logged (null: a no-op). */
function modelCommand(command: unknown): ModelCommand | null {
  if (command === null || command === undefined) return null;
  const request = (command as { request?: { value?: unknown } }).request;
  const value = Number(request?.value);
  if (!Number.isInteger(value)) throw new RuntimeDivergence(`a log holds a command the model ` +
    `has no value for: ${JSON.stringify(command)}`);
  return value;
}

/** The model's values of the snapshots taken in the replay, by `index/term`. */
type SnapshotValues = Map<string, ModelData>;

const snapshotKey = (snapshot: { lastIncludedIndex: number; lastIncludedTerm: number }) =>
  `${snapshot.lastIncludedIndex}/${snapshot.lastIncludedTerm}`;

/** A runtime snapshot (of the group state machine) as the model's (of the applied values). */
function modelSnapshot(
  snapshot: Snapshot<unknown> | null,
  values: SnapshotValues,
): Snapshot<ModelData> | null {
  if (snapshot === null) return null;
  const data = values.get(snapshotKey(snapshot));
  if (data === undefined) {
    throw new RuntimeDivergence(`a snapshot at ${snapshotKey(snapshot)} that no CompactLog took`);
  }
  const { lastIncludedIndex, lastIncludedTerm } = snapshot;
  return { lastIncludedIndex, lastIncludedTerm, data };
}

/**
 * A runtime node as the model's node: the same fields, commands and snapshots as values, and
 * its pending reads under the model's request ids (`readId` maps the runtime's).
 */
function modelNode(
  node: RaftNode<unknown, unknown>,
  values: SnapshotValues,
  readId: (runtimeId: number) => number,
): ModelNode {
  const log = logEntriesOf(logEntriesArray(node.log).map((entry) =>
    ({ term: entry.term, command: modelCommand(entry.command) })));
  const pendingReads = node.pendingReads.map((read) =>
    ({ ...read, requestId: readId(read.requestId) }));
  return {
    ...node, log, snapshot: modelSnapshot(node.snapshot, values), pendingReads,
  } as ModelNode;
}

/** A request the client sent, as the checks of its reply need it. */
type SentRequest =
  | { readonly kind: 'write'; readonly server: number; proposed: { index: number; term: number } | null }
  | { readonly kind: 'read'; readonly server: number; readonly modelId: number; runtimeKey: string | null };

/** Canonical JSON (keys sorted): a message read off the wire against one from the trace. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    return Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)));
  });
}

interface History {
  elected: RaftModelState['elected'];
  committed: RaftModelState['committed'];
  leaderLogRewritten: boolean;
  commitRolledBack: boolean;
  applyOutOfOrder: boolean;
  /** The runtime's reads not answered yet, each with the commit it must see (its floor). */
  readsWaiting: RaftModelState['readsWaiting'];
  staleRead: boolean;
  termRaisedAlone: boolean;
  leaseBroken: boolean;
}

class RaftAdapter implements RuntimeAdapter<RaftModelState, RaftAction> {
  readonly comparedVariables = [
    'servers', 'persisted', 'applied', 'elected', 'committed', 'readsWaiting', 'staleRead',
  ];
  readonly evaluatedInvariants = evaluated;
  private readonly names: string[];
  private readonly cluster: ReplayCluster;
  private applied: ModelData[];
  private readonly snapshots: SnapshotValues = new Map();
  /** What each node's disk holds, read back after every step. */
  private persisted: ModelPersisted[] = [];
  private history: History = {
    elected: [], committed: [], leaderLogRewritten: false,
    commitRolledBack: false, applyOutOfOrder: false, readsWaiting: [], staleRead: false,
    termRaisedAlone: false, leaseBroken: false,
  };
  private requestsSent = 0;
  /** Why a step of the shell could not be read as the model's (thrown after it settled). */
  private problem: string | null = null;
  readonly undriven = {};
  /** Each server's incarnation: the runtime numbers reads per incarnation. */
  private readonly incarnations: number[];
  /** The model's request id of each runtime read, by `server/incarnation/runtimeId`. */
  private readonly readIds = new Map<string, number>();
  /** The reads the spec released (readReady), by the same key. */
  private readonly readsReleased = new Set<string>();
  /** The client's requests by frame id; `arriving` is the one being delivered now. */
  private readonly requests = new Map<number, SentRequest>();
  private arriving: SentRequest | null = null;
  /** The nodes as read after the last step (nothing moves between steps). */
  private latest: ModelNode[] | null = null;
  private readonly repliesChecked = new Set<number>();
  /** The servers whose step of a message this step sent something (a vote request answered). */
  private readonly answered = new Set<number>();
  private readonly options:
    { readonly preVote: boolean; readonly checkQuorum: boolean; readonly maxInflightAppends: number };

  constructor(
    serverCount: number,
    params: Params,
    bug: string | null,
    faults: Partial<ShellFaults>,
  ) {
    this.incarnations = Array.from({ length: serverCount }, () => 0);
    this.names = Array.from({ length: serverCount }, (_, id) => `g${gid}-${id}`);
    this.applied = this.names.map(() => []);
    this.options = { preVote: params['pre-vote'] === true,
      checkQuorum: params['check-quorum'] === true,
      maxInflightAppends: Number(params['inflight-window'] ?? 0) };
    const layout: ClusterLayout = {
      shardCount: 1, controllers: [], groups: { [gid]: this.names },
    };
    this.cluster = new ReplayCluster({
      layout,
      // The model's node options: one entry per append, PreVote, CheckQuorum and the flow
      // control's window as checked (no byte bound: the model's entries are tiny).
      tuning: { maxEntriesPerAppend: 1, ...this.options, batchDuringAppendSync: false,
        maxBytesPerAppend: null, maxInflightBytes: null },
      bugs: { ...(bug === null ? {} : { raft: bugSwitches(raftBugNames, [bug]) }),
        shell: faults },
      adminName: clientName,
      onStep: (record) => {
        // A throw here would crash the server: keep the reason for perform() instead.
        try {
          this.noteStep(record);
        } catch (error) {
          this.problem ??= (error as Error).message;
        }
      },
    });
  }

  async setUp(): Promise<void> {
    await this.cluster.startAll(this.names);
    await this.readDisks();
  }

  private async readDisks(): Promise<void> {
    const loaded = await Promise.all(this.names.map((name) => this.cluster.readDisk(name)));
    this.persisted = loaded.map(({ hardState, snapshot, entries }) => {
      const modelEntries = entries.map((entry) =>
        ({ term: entry.term, command: modelCommand(entry.command ?? null) }));
      return {
        hardState, snapshot: modelSnapshot(snapshot, this.snapshots), entries: modelEntries,
      };
    });
  }

  tearDown(): void {
    for (const name of this.names) this.cluster.crash(name);
  }

  counterpart(recorded: unknown, enabled: readonly RaftAction[]): RaftAction | undefined {
    const wanted = recorded as RaftAction;
    if (!('envelope' in wanted)) return undefined;
    const { from, to, message } = wanted.envelope;
    return enabled.find((action) => action.type === wanted.type && 'envelope' in action &&
      action.envelope.from === from && action.envelope.to === to &&
      action.envelope.message.type === message.type);
  }

  async perform(
    action: RaftAction,
    _before: RaftModelState,
    expected: RaftModelState,
  ): Promise<string | null> {
    const before = this.latest ?? this.nodes();
    const appliedBefore = this.applied.map((values) => values.length);
    this.answered.clear();
    // The model's disk syncs a leader's own append at its Sync: until then the runtime's
    // fsyncs of that node wait too (released when the model synced, atomically or by Sync).
    // A commitIndex-only hard state starts no sync (it waits for the next one): it is no
    // reason to hold the syncs the step does start.
    this.names.forEach((name, id) => this.cluster.holdSyncs(name,
      !samePersisted(withCommit(expected.durable[id]!, expected.persisted[id]!),
        expected.persisted[id]!)));
    const note = await this.run(action, expected);
    if (this.problem !== null) throw new RuntimeDivergence(this.problem);
    await this.readDisks();
    const after = this.nodes();
    this.latest = after;
    let state: RaftModelState = { ...expected, ...this.history, servers: after };
    after.forEach((node, id) => {
      state = recordHistory(state, before[id]!, node);
      const lowered = node.commitIndex < before[id]!.commitIndex ||
        this.applied[id]!.length < appliedBefore[id]!;
      if (lowered) this.history.commitRolledBack = true;
    });
    // §9.6's flags from the acting node's real step (its term before and after, its sends).
    const actor = 'envelope' in action ? action.envelope.to : action.server;
    state = recordDisruption(state, action, before[actor]!,
      after[actor]!, this.answered.has(actor), this.options);
    const { elected, committed, leaderLogRewritten, termRaisedAlone, leaseBroken } = state;
    this.history = { ...this.history, elected, committed, leaderLogRewritten, termRaisedAlone,
      leaseBroken };
    // Replies are checked against what the runtime committed, this step included.
    this.checkReplies();
    if (this.problem !== null) throw new RuntimeDivergence(this.problem);
    return note;
  }

  /**
   * The runtime's disk, read back, holds what the model made durable and up to what it wrote:
   * a held sync has written its bytes, a later one waits behind it, a commitIndex-only hard
   * state waits in the storage's buffer for the next sync. Anything in between agrees.
   */
  observe(expected: RaftModelState): RaftModelState {
    const persisted = this.persisted.map((disk, id) =>
      between(disk, expected.durable[id]!, expected.persisted[id]!)
        ? expected.persisted[id]! : disk);
    // CommittedDurable reads the runtime's own disk.
    return {
      ...expected, ...this.history,
      servers: this.latest ?? this.nodes(), persisted, durable: this.persisted,
      applied: this.applied,
    };
  }

  private nodes(): ModelNode[] {
    return this.names.map((name, id) => {
      const view = this.cluster.server(name).view();
      if (view === null) throw new RuntimeDivergence(`${name} is not running`);
      const applied = this.applied[id]!.length;
      if (view.appliedIndex !== applied) {
        throw new RuntimeDivergence(`${name}'s state machine is at index ${view.appliedIndex} ` +
          `but ${applied} entries were applied or restored`);
      }
      return modelNode(view.raft, this.snapshots, (runtimeId) => {
        const modelId = this.readIds.get(this.readKey(id, runtimeId));
        if (modelId === undefined) {
          throw new RuntimeDivergence(`${name} holds a read ${runtimeId} no ReadIndex sent`);
        }
        return modelId;
      });
    });
  }

  private readKey(server: number, runtimeId: number): string {
    return `${server}/${this.incarnations[server]}/${runtimeId}`;
  }

  /**
   * The replies held for the client since the last step: a write's answer (anything but
   * wrong-leader) must be for the entry the spec committed where it was proposed, and a read
   * may be answered only once the spec released it.
   */
  private checkReplies(): void {
    for (const held of this.cluster.network.frames()) {
      if (held.to !== clientName || held.frame.kind !== 'reply') continue;
      const id = held.frame.id;
      if (this.repliesChecked.has(id)) continue;
      this.repliesChecked.add(id);
      const request = this.requests.get(id);
      if (request === undefined || held.frame.body.type === 'wrong-leader') continue;
      const name = this.names[request.server]!;
      if (request.kind === 'read') {
        if (request.runtimeKey === null || !this.readsReleased.has(request.runtimeKey)) {
          this.problem ??= `${name} answered read ${request.modelId} before the spec ` +
            'released it (readReady)';
        }
        continue;
      }
      const proposed = request.proposed;
      const committed = proposed === null ? undefined : this.history.committed[proposed.index - 1];
      if (proposed === null || committed?.term !== proposed.term) {
        const where = proposed === null ? 'a command it never proposed'
          : `the command proposed at index ${proposed.index} in term ${proposed.term}, ` +
            `where the spec committed ${committed === undefined ? 'nothing'
              : `term ${committed.term}'s entry`}`;
        this.problem ??= `${name} acknowledged ${where}`;
      }
    }
  }

  private async run(action: RaftAction, expected: RaftModelState): Promise<string | null> {
    switch (action.type) {
      case 'Timeout':
        this.fire(action.server, ['raft-election']);
        break;
      case 'Heartbeat':
        this.fire(action.server, ['raft-heartbeat-soon', 'raft-heartbeat-periodic']);
        break;
      case 'ClientRequest':
        this.sendRequest(action.server, action.value);
        break;
      case 'Deliver':
      case 'Duplicate':
      case 'Drop':
        this.moveFrame(action.type, action.envelope);
        break;
      case 'Restart': {
        const name = this.names[action.server]!;
        this.cluster.crash(name);
        this.applied[action.server] = [];
        this.incarnations[action.server]! += 1;
        await this.cluster.start(name);
        return null;
      }
      case 'CompactLog':
        this.compact(action.server);
        break;
      case 'Sync':
        // The held fsyncs were released above; the storage's report follows in settle().
        break;
      case 'ReadIndex':
        this.sendRead(action.server, expected.readsIssued);
        break;
    }
    await this.cluster.settle();
    return this.extraFramesNote(action);
  }

  /** The application's snapshot at its applied index: its values are noted first. */
  private compact(server: number): void {
    const name = this.names[server]!;
    const node = this.cluster.server(name).view()!.raft;
    const index = this.applied[server]!.length;
    const term = index === 0 ? 0 : termAt(node, index);
    if (term === undefined) throw new RuntimeDivergence(`${name} has no term at ${index}`);
    const key = snapshotKey({ lastIncludedIndex: index, lastIncludedTerm: term });
    this.snapshots.set(key, this.applied[server]!.slice());
    this.cluster.server(name).raft!.requestSnapshot();
  }

  private fire(server: number, timers: readonly string[]): void {
    const name = this.names[server]!;
    const held = this.cluster.timers(name);
    const timer = timers.find((candidate) => held.isPending(candidate));
    if (timer === undefined) {
      throw new RuntimeDivergence(`${name} has no ${timers.join(' or ')} timer pending`);
    }
    held.fire(timer);
  }

  private sendRequest(server: number, value: number): void {
    const request = { client: 0, seq: this.requestsSent++, op: 'put' as const,
      key: requestKey, value: String(value) };
    this.deliverRequest({ kind: 'write', server, proposed: null }, request);
  }

  /** A get, read through ReadIndex: the step it arrives in numbers it (noteStep). */
  private sendRead(server: number, modelId: number): void {
    const request = { client: 0, seq: this.requestsSent++, op: 'get' as const, key: requestKey,
      value: '' };
    this.deliverRequest({ kind: 'read', server, modelId, runtimeKey: null }, request);
  }

  /**
   * Delivers the client's request to its server. The server steps it at once (the loop is
   * idle between steps), so noteStep sees it arrive while `arriving` names it.
   */
  private deliverRequest(sent: SentRequest, request: ClientRequest): void {
    const held = this.cluster.sendRequest(clientName, this.names[sent.server]!,
      { type: 'kv', request });
    if (held.frame.kind === 'request') this.requests.set(held.frame.id, sent);
    this.arriving = sent;
    try {
      this.cluster.network.deliver(held);
    } finally {
      this.arriving = null;
    }
  }

  private moveFrame(type: 'Deliver' | 'Duplicate' | 'Drop', envelope: ModelEnvelope): void {
    const from = this.names[envelope.from]!;
    const to = this.names[envelope.to]!;
    const wanted = canonical(envelope.message);
    const held = this.cluster.network.find((candidate) => candidate.from === from &&
      candidate.to === to && candidate.frame.kind === 'raft' &&
      canonical(modelMessage(candidate, this.snapshots)) === wanted);
    if (held === undefined) {
      throw new RuntimeDivergence(`no frame ${from}->${to} carries ${envelope.message.type} ` +
        `${canonical(envelope.message)}`);
    }
    if (type === 'Deliver') this.cluster.network.deliver(held);
    else if (type === 'Duplicate') this.cluster.network.duplicate(held);
    else this.cluster.network.drop(held);
  }

  /** A heartbeat's frames to peers other than the action's, held undelivered. */
  private extraFramesNote(action: RaftAction): string | null {
    if (action.type !== 'Heartbeat') return null;
    const from = this.names[action.server]!;
    const others = this.names.filter((name, id) => id !== action.peer && name !== from);
    const extra = this.cluster.network.frames().filter((held) => held.from === from &&
      others.includes(held.to));
    if (extra.length === 0) return null;
    return `the runtime's heartbeat also sent to ${[...new Set(extra.map((held) => held.to))]
      .join(', ')} (held, undelivered)`;
  }

  /** A read's readReady or readRefused: it leaves the waiting reads (stale below its floor). */
  private answerRead(
    server: number,
    effect: { readonly type: string; readonly requestId: number; readonly index?: number },
  ): void {
    const key = this.readKey(server, effect.requestId);
    if (effect.type === 'readReady') this.readsReleased.add(key);
    const modelId = this.readIds.get(key);
    const record = this.history.readsWaiting.find((read) => read.requestId === modelId);
    if (record === undefined) return;
    this.history.readsWaiting = this.history.readsWaiting.filter((read) => read !== record);
    if (effect.type === 'readReady' && effect.index! < record.floor) this.history.staleRead = true;
  }

  /** What the shell's steps applied, as the model's applications hold values. */
  private noteStep(record: StepRecord): void {
    const id = this.names.indexOf(record.node);
    if (id < 0) return;
    const input = record.input as { type?: string; requestId?: number };
    if (input.type === 'restart') this.applied[id] = [];
    const sent = (record.effects as { type: string }[]).some((effect) => effect.type === 'send');
    if (input.type === 'message' && sent) this.answered.add(id);
    const arriving = this.arriving?.server === id ? this.arriving : null;
    if (input.type === 'readIndex' && arriving?.kind === 'read') {
      arriving.runtimeKey = this.readKey(id, input.requestId!);
      this.readIds.set(arriving.runtimeKey, arriving.modelId);
      // The read must see every entry committed when it arrived (the model's floor).
      const read = { requestId: arriving.modelId, floor: this.history.committed.length };
      this.history.readsWaiting = [...this.history.readsWaiting, read];
    }
    for (const effect of record.effects as { type: string; entries?: unknown[] }[]) {
      if (effect.type === 'readReady' || effect.type === 'readRefused') {
        this.answerRead(id, effect as unknown as { type: string; requestId: number; index?: number });
      }
      if (effect.type === 'proposed' && arriving?.kind === 'write') {
        const { index, term } = effect as unknown as { index: number; term: number };
        arriving.proposed = { index, term };
      }
      if (effect.type === 'restoreSnapshot') {
        const snapshot = (effect as unknown as { snapshot: Snapshot<unknown> }).snapshot;
        this.applied[id] = modelSnapshot(snapshot, this.snapshots)!.data;
        continue;
      }
      if (effect.type !== 'apply') continue;
      const applied = this.applied[id]!.slice();
      for (const entry of effect.entries as { index: number; command: unknown }[]) {
        if (entry.index !== applied.length + 1) this.history.applyOutOfOrder = true;
        applied.push(modelCommand(entry.command));
      }
      this.applied[id] = applied;
    }
  }
}

/** The message of a held raft frame with its commands and snapshot as the model's values. */
function modelMessage(held: HeldFrame, values: SnapshotValues): unknown {
  if (held.frame.kind !== 'raft') return null;
  const message = held.frame.message;
  if (message.type === 'InstallSnapshotRequest') {
    return { ...message, snapshot: modelSnapshot(message.snapshot, values) };
  }
  if (message.type !== 'AppendEntriesRequest') return message;
  const entries = message.entries.map((entry) =>
    ({ term: entry.term, command: modelCommand(entry.command) }));
  return { ...message, entries };
}

/** `disk` with `written`'s commit index. */
function withCommit(disk: ModelPersisted, written: ModelPersisted): ModelPersisted {
  const commitIndex = written.hardState.commitIndex;
  return disk.hardState.commitIndex === commitIndex ? disk
    : { ...disk, hardState: { ...disk.hardState, commitIndex } };
}

/** Whether `disk` lies between the model's durable and written disks (see observe). */
function between(disk: ModelPersisted, durable: ModelPersisted, written: ModelPersisted):
  boolean {
  const hard = disk.hardState;
  if (hard.currentTerm !== written.hardState.currentTerm) return false;
  if (hard.votedFor !== written.hardState.votedFor) return false;
  if (hard.commitIndex > written.hardState.commitIndex) return false;
  const base = (model: ModelPersisted) => model.snapshot?.lastIncludedIndex ?? 0;
  if (base(disk) !== base(written) && base(disk) !== base(durable)) return false;
  const prefixOf = (short: ModelPersisted['entries'], long: ModelPersisted['entries']) =>
    short.length <= long.length && short.every((entry, at) =>
      entry.term === long[at]!.term && entry.command === long[at]!.command);
  const same = (a: ModelPersisted['entries'], b: ModelPersisted['entries']) =>
    a.length === b.length && prefixOf(a, b);
  return same(disk.entries, durable.entries) || same(disk.entries, written.entries) ||
    (prefixOf(durable.entries, disk.entries) && prefixOf(disk.entries, written.entries));
}

export function createRaftAdapter(
  params: Params,
  bug: string | null,
  faults: Partial<ShellFaults> = {},
): RuntimeAdapter<RaftModelState, RaftAction> {
  return new RaftAdapter(params['servers'] as number, params, bug, faults);
}
