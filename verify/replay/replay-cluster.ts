/**
 * The nodes of a runtime replay: real node shells (impl/node NodeServer: RaftLoop, replica
 * machine, DriverHost, request handling) over a held network, held timers, a memory disk per
 * node and a clock that stands still. Nothing runs unless the replay puts it in motion, and
 * `settle()` returns once every consequence of that input is done: the simulated disk and
 * network complete through promises only, so once the microtask queue is empty every step,
 * sync and send it caused has happened (the simulator settles the same way).
 */
import type { Clock } from '../../impl/io/clock.js';
import type { Transport } from '../../impl/io/transport.js';
import type { ClusterLayout, ServerBugs, ServerTuning, StepRecord } from '../../impl/node/api.js';
import type { LoadedState } from '../../impl/io/storage.js';
import { mapJsonCodec } from '../../impl/node/json-maps.js';
import { NodeServer } from '../../impl/node/server.js';
import { WalStorage } from '../../impl/wal/wal-storage.js';
import { encodeFrame, type RequestBody } from '../../impl/node/wire.js';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { MemoryDisk } from '../../impl/sim/memory-disk.js';
import { RuntimeDivergence } from './adapter.js';
import { HeldNetwork, type HeldFrame } from './held-network.js';
import { HeldTimers } from './held-timers.js';

/** The replay's seed: only the disk's crash draws and election timeouts read it, and the
 * replay crashes only settled disks and fires timers by name, so no outcome depends on it. */
const replaySeed = 14;

/**
 * Resolves once the microtask queue is empty: a `process.nextTick` callback queued from a
 * microtask runs only after the queue is drained (Node's processTicksAndRejections runs the
 * ticks, then every microtask, then the ticks queued meanwhile), and the replay's nodes
 * complete through promises only (no timer, tick or I/O of their own: grep impl/sim and
 * verify/replay). The first await makes the tick queued from a microtask even when the caller
 * runs synchronously in a macrotask. A setImmediate round would do the same through a turn of
 * the event loop, an epoll wait included: about ten times the CPU (mbt settles after every
 * event, some 20,000 times in the bench's controller walks).
 */
async function microtasksDrained(): Promise<void> {
  await undefined;
  await new Promise<void>((resolve) => process.nextTick(resolve));
}

/** Time stands still: timers fire by name, never by the clock. */
const stillClock: Clock = { now: () => 0 };

export interface ReplayClusterOptions {
  readonly layout: ClusterLayout;
  readonly tuning: Partial<ServerTuning>;
  readonly bugs: ServerBugs;
  /** Who may issue join / leave / move. */
  readonly adminName: string;
  /** Every step of every node, as the shell reports it (StepRecord). */
  readonly onStep?: (record: StepRecord) => void;
}

interface ReplayNode {
  readonly disk: MemoryDisk;
  readonly timers: HeldTimers;
  server: NodeServer | null;
  /** Held fsyncs: a leader's own append that the model has not synced yet (its Sync). */
  readonly syncs: { held: boolean; waiting: (() => void)[] };
  /** The last readDisk and the disk's change count it was read at. */
  read?: { changes: number; loaded: Promise<LoadedState<unknown, unknown>> };
}

export class ReplayCluster {
  readonly network = new HeldNetwork();
  readonly names: readonly string[];
  private readonly nodes = new Map<string, ReplayNode>();
  private readonly random = new SeededRandom(replaySeed);
  private readonly failures: string[] = [];
  /** The endpoints of the replay's own senders (clients, the administrator). */
  private readonly senders = new Map<string, Transport>();
  private requestsSent = 0;

  constructor(private readonly options: ReplayClusterOptions) {
    const { layout } = options;
    this.names = [...layout.controllers, ...Object.values(layout.groups).flat()];
    for (const name of this.names) {
      const syncs = { held: false, waiting: [] as (() => void)[] };
      const syncDelay = () => syncs.held
        ? new Promise<void>((resolve) => syncs.waiting.push(resolve)) : Promise.resolve();
      const disk = new MemoryDisk(this.random.split(), { syncDelay });
      this.nodes.set(name, { disk, timers: new HeldTimers(), server: null, syncs });
    }
  }

  /** Starts `name` from its disk (empty the first time) and waits until it settled. */
  start(name: string): Promise<void> {
    return this.startAll([name]);
  }

  /**
   * Starts each of `names` from its disk, all at once (a starting server only reads its own
   * disk: none sends, and its timers wait to be fired), and waits until every one settled.
   */
  async startAll(names: readonly string[]): Promise<void> {
    const started = names.map((name) => this.launch(name));
    await this.settle();
    await Promise.all(started);
  }

  private launch(name: string): Promise<void> {
    const node = this.node(name);
    if (node.server !== null) throw new Error(`${name} is already running`);
    const server = new NodeServer({
      name,
      layout: this.options.layout,
      environment: {
        transport: this.network.endpoint(name),
        fileSystem: node.disk.mount(),
        directory: `/${name}`,
        clock: stillClock,
        timers: node.timers,
        random: this.random.split(),
        // Notable events only (recoveries, refused frames), never decisions: the replay
        // compares states, so it does not keep them.
        log: () => undefined,
      },
      tuning: this.options.tuning,
      bugs: this.options.bugs,
      isAdmin: (from) => from === this.options.adminName,
      ...(this.options.onStep === undefined ? {} : { onStep: this.options.onStep }),
      onFatal: (error) => this.failures.push(`${name}: ${String(error)}`),
    });
    node.server = server;
    return server.start();
  }

  /**
   * Holds `name`'s fsyncs from now on (held: true) or completes the held ones and stops
   * holding (false): the model's disk syncs a leader's own append only at its Sync action.
   */
  holdSyncs(name: string, held: boolean): void {
    const syncs = this.node(name).syncs;
    syncs.held = held;
    if (held) return;
    const waiting = syncs.waiting.splice(0);
    for (const resolve of waiting) resolve();
  }

  /** Process death and power loss: the server stops, its disk keeps what it synced. */
  crash(name: string): void {
    const node = this.node(name);
    node.server?.crash();
    node.server = null;
    node.timers.cancelAllTimers();
    node.syncs.held = false;
    node.syncs.waiting.length = 0;
    node.disk.crash();
    this.network.disconnect(name);
  }

  /**
   * Sends a request frame from `from` (a client or the administrator, not a server) to `to`
   * and returns it, held: the caller delivers it. Ids are unique across the replay's senders.
   */
  sendRequest(from: string, to: string, body: RequestBody): HeldFrame {
    let endpoint = this.senders.get(from);
    if (endpoint === undefined) {
      endpoint = this.network.endpoint(from);
      this.senders.set(from, endpoint);
    }
    endpoint.send(to, encodeFrame({ kind: 'request', id: ++this.requestsSent, body }));
    const frames = this.network.frames();
    return frames[frames.length - 1]!;
  }

  /** The held reply to a request frame, if its receiver answered it. */
  replyTo(request: HeldFrame): HeldFrame | undefined {
    if (request.frame.kind !== 'request') return undefined;
    const id = request.frame.id;
    return this.network.find((held) => held.from === request.to && held.to === request.from &&
      held.frame.kind === 'reply' && held.frame.id === id);
  }

  /**
   * What `name`'s disk holds, read as a restart would read it (a settled disk has synced
   * everything, so nothing is torn and reading writes nothing).
   */
  readDisk(name: string): Promise<LoadedState<unknown, unknown>> {
    const node = this.node(name);
    // mbt reads every disk after every step: read again only what changed.
    if (node.read?.changes === node.disk.changes) return node.read.loaded;
    const loaded = this.loadDisk(name);
    node.read = { changes: node.disk.changes, loaded };
    return loaded;
  }

  private loadDisk(name: string): Promise<LoadedState<unknown, unknown>> {
    const storage = new WalStorage<unknown, unknown>({
      fileSystem: this.node(name).disk.mount(),
      directory: `/${name}`,
      commandCodec: mapJsonCodec<unknown>(),
      snapshotCodec: mapJsonCodec<unknown>(),
    });
    return storage.load();
  }

  isRunning(name: string): boolean {
    return this.node(name).server !== null;
  }

  server(name: string): NodeServer {
    const server = this.node(name).server;
    if (server === null) throw new Error(`${name} is not running`);
    return server;
  }

  timers(name: string): HeldTimers {
    return this.node(name).timers;
  }

  /** Waits until every consequence of the inputs given so far has happened. */
  async settle(): Promise<void> {
    await microtasksDrained();
    if (this.failures.length > 0) {
      throw new RuntimeDivergence(`a server failed: ${this.failures[0]}`);
    }
  }

  private node(name: string): ReplayNode {
    const node = this.nodes.get(name);
    if (node === undefined) throw new Error(`no node ${name} in the replay`);
    return node;
  }
}
