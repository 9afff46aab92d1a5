/**
 * The servers of one simulated cluster, over one virtual clock and one simulated network,
 * each with a disk of its own (DESIGN §5). A crash is process death plus power loss: the
 * server stops, its disk loses what was not synced (as the disk's seeded draws decide) and
 * its endpoint closes, so frames for it are lost. A restart is a new process: a new Server
 * over a new mount of the same disk, with a new endpoint. A crash can also be planned at a
 * server's n-th next disk write (MemoryDisk.crashBeforeOperation): it then falls inside a
 * write or an fsync, where torn records and half-done renames happen.
 */
import { assert } from '../../spec/assert.js';
import type { Random } from '../../impl/io/random.js';
import type { Transport } from '../../impl/io/transport.js';
import type {
  ClusterLayout, Server, ServerBugs, ServerOptions, ServerTuning, ServerView,
} from '../../impl/node/api.js';
import type { TraceSink } from '../../impl/trace/trace-sink.js';
import { MemoryDisk, type CrashReport } from '../../impl/sim/memory-disk.js';
import type { SimulatedNetwork } from '../../impl/sim/simulated-network.js';
import type { VirtualClock } from '../../impl/sim/virtual-clock.js';
import { loggedTimers, type EventLog } from './event-log.js';
import { serverNames } from './options.js';

export type ServerFactory = (options: ServerOptions) => Server;

/**
 * A server's log line as one event: a fatal error's stack follows its message on further
 * lines, which name files of this checkout (a run's digest must not depend on them).
 */
function firstLine(line: string): string {
  const end = line.indexOf('\n');
  return end < 0 ? line : line.slice(0, end);
}

/** The one node that may issue join / leave / move. */
export const adminName = 'admin';

/** Simulated fsync latency: up to this many milliseconds, drawn per sync. */
const syncDelayMsMax = 2;

export interface ClusterSetup {
  readonly clock: VirtualClock;
  readonly network: SimulatedNetwork;
  readonly layout: ClusterLayout;
  readonly log: EventLog;
  /** The cluster's own stream: each server's disk and election timeouts split from it. */
  readonly random: Random;
  readonly createServer: ServerFactory;
  readonly tuning?: Partial<ServerTuning>;
  readonly bugs?: ServerBugs;
  /** A server's start() failed or one of its promises rejected: the run fails. */
  readonly onServerError: (name: string, error: unknown) => void;
  /**
   * A server's last view, just before it dies: a crash inside a disk write can stop it in
   * the middle of an event, after it applied (and answered) commands no other view shows yet.
   */
  readonly onLastView: (view: ServerView) => void;
  /** Tracing: each server's sink, kept across its incarnations. */
  readonly traceSinks?: ReadonlyMap<string, TraceSink>;
  /** Disk damage (disk-damage.ts): told of restarts, loads and refused starts. */
  readonly diskDamage?: DiskDamageHooks;
}

export interface DiskDamageHooks {
  beforeRestart(name: string, disk: MemoryDisk): void;
  loaded(name: string): void;
  /** True: the failed start is the damage detected, and the server stays down for good. */
  refused(name: string, error: unknown): boolean;
}

interface Node {
  readonly disk: MemoryDisk;
  /** Each incarnation's election timeouts split from it. */
  readonly random: Random;
  server: Server | null;
  transport: Transport | null;
  incarnation: number;
  /** Told when a planned crash happened. */
  onPlannedCrash: (() => void) | null;
  /** Stopped for good (it refused its damaged disk): never restarted. */
  stopped: boolean;
}

export class SimulatedCluster {
  readonly names: readonly string[];
  private readonly nodes = new Map<string, Node>();

  constructor(private readonly setup: ClusterSetup) {
    this.names = serverNames(setup.layout);
    for (const name of this.names) {
      const diskRandom = setup.random.split();
      const disk = new MemoryDisk(diskRandom, {
        syncDelay: () => setup.clock.sleep(diskRandom.nextInt(syncDelayMsMax + 1)),
        onCrash: (report) => this.diskCrashed(name, report),
      });
      const random = setup.random.split();
      this.nodes.set(name, {
        disk, random, server: null, transport: null, incarnation: 0, onPlannedCrash: null,
        stopped: false,
      });
    }
  }

  /** Starts a server that is down: its first start, or a restart from its disk. */
  start(name: string): void {
    const node = this.node(name);
    assert(node.server === null && !node.stopped, `${name} is already up or stopped`);
    const { clock, network, layout, log } = this.setup;
    if (node.incarnation > 0) this.setup.diskDamage?.beforeRestart(name, node.disk);
    const transport = network.endpoint(name);
    node.incarnation++;
    const server = this.setup.createServer({
      name,
      layout,
      environment: {
        transport,
        fileSystem: node.disk.mount(),
        directory: `/data/${name}`,
        clock,
        timers: loggedTimers(clock.timers(),
          (timer) => log.add(clock.now(), name, `timer ${timer}`, false)),
        random: node.random.split(),
        log: (line) => log.add(clock.now(), name, firstLine(line)),
      },
      ...(this.setup.tuning === undefined ? {} : { tuning: this.setup.tuning }),
      ...(this.setup.bugs === undefined ? {} : { bugs: this.setup.bugs }),
      isAdmin: (from) => from === adminName,
      ...(this.setup.traceSinks === undefined ? {} : { trace: this.setup.traceSinks.get(name)! }),
      onFatal: (error) => this.setup.onServerError(name, error),
    });
    node.server = server;
    node.transport = transport;
    log.add(clock.now(), name, node.incarnation === 1 ? 'start' : `restart ${node.incarnation}`);
    server.start().then(() => {
      if (node.server === server) this.setup.diskDamage?.loaded(name);
    }, (error: unknown) => {
      if (node.server !== server) return;
      if (this.setup.diskDamage?.refused(name, error) !== true) {
        this.setup.onServerError(name, error);
        return;
      }
      this.stopProcess(node, name);
      node.stopped = true;
    });
  }

  /** Process death and power loss now; returns what the disk lost. */
  crash(name: string): CrashReport {
    const node = this.node(name);
    this.stopProcess(node, name);
    const report = node.disk.crash();
    this.logCrash(name, 'crash', report);
    return report;
  }

  /** Process death and power loss just before the server's `writes`-th next disk write. */
  crashDuringWrite(name: string, writes: number, onCrashed: () => void): void {
    const node = this.node(name);
    assert(node.server !== null && node.onPlannedCrash === null, `${name}: cannot plan a crash`);
    node.onPlannedCrash = onCrashed;
    node.disk.crashBeforeOperation(writes);
    this.setup.log.add(this.setup.clock.now(), name, `crash planned at disk write ${writes}`);
  }

  isCrashPlanned(name: string): boolean {
    return this.node(name).onPlannedCrash !== null;
  }

  /** Forgets every planned crash that has not happened. */
  cancelPlannedCrashes(): void {
    for (const node of this.nodes.values()) {
      node.disk.cancelPlannedCrash();
      node.onPlannedCrash = null;
    }
  }

  private diskCrashed(name: string, report: CrashReport): void {
    const node = this.node(name);
    // An explicit crash() stopped the process already; a planned one stops it now.
    if (node.server === null) return;
    this.stopProcess(node, name);
    this.logCrash(name, 'crash during a disk write', report);
    const onCrashed = node.onPlannedCrash;
    node.onPlannedCrash = null;
    onCrashed?.();
  }

  private stopProcess(node: Node, name: string): void {
    assert(node.server !== null && node.transport !== null, `${name} is already down`);
    const view = node.server.view();
    if (view !== null) this.setup.onLastView(view);
    node.server.crash();
    node.server = null;
    void node.transport.close();
    node.transport = null;
  }

  private logCrash(name: string, what: string, report: CrashReport): void {
    const { clock, log } = this.setup;
    log.add(clock.now(), name, `${what}: ${report.bytesLost} unsynced bytes lost, ` +
      `${report.filesTorn} files torn, ${report.directoryOperationsLost} names lost`);
  }

  isUp(name: string): boolean {
    return this.node(name).server !== null;
  }

  upServers(): string[] {
    return this.names.filter((name) => this.isUp(name));
  }

  /** Servers that are down and may start again (not those stopped for good). */
  downServers(): string[] {
    return this.names.filter((name) => !this.isUp(name) && !this.node(name).stopped);
  }

  isStopped(name: string): boolean {
    return this.node(name).stopped;
  }

  /** The server's view while it is up and started, else null. */
  view(name: string): ServerView | null {
    return this.node(name).server?.view() ?? null;
  }

  /** The views of the servers that are up and started, in layout order. */
  views(): ServerView[] {
    const views: ServerView[] = [];
    for (const node of this.nodes.values()) {
      const view = node.server?.view() ?? null;
      if (view !== null) views.push(view);
    }
    return views;
  }

  private node(name: string): Node {
    const node = this.nodes.get(name);
    assert(node !== undefined, `no server ${name}`);
    return node;
  }
}
