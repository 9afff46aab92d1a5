/**
 * The servers of one simulated cluster, over one virtual clock and one simulated network,
 * each with a disk of its own (DESIGN §5). A crash is process death plus power loss: the
 * server stops, its disk loses what was not synced (as the disk's seeded draws decide) and
 * its endpoint closes, so frames for it are lost. A restart is a new process: a new Server
 * over a new mount of the same disk, with a new endpoint.
 */
import { assert } from '../../../spec/assert.js';
import type { Random } from '../../io/random.js';
import type { Transport } from '../../io/transport.js';
import type {
  ClusterLayout, Server, ServerBugs, ServerOptions, ServerTuning, ServerView,
} from '../../node/api.js';
import { MemoryDisk, type CrashReport } from '../memory-disk.js';
import type { SimulatedNetwork } from '../simulated-network.js';
import type { VirtualClock } from '../virtual-clock.js';
import type { EventLog } from './event-log.js';
import { serverNames } from './options.js';

export type ServerFactory = (options: ServerOptions) => Server;

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
}

interface Node {
  readonly disk: MemoryDisk;
  /** Each incarnation's election timeouts split from it. */
  readonly random: Random;
  server: Server | null;
  transport: Transport | null;
  incarnation: number;
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
      });
      const random = setup.random.split();
      this.nodes.set(name, { disk, random, server: null, transport: null, incarnation: 0 });
    }
  }

  /** Starts a server that is down: its first start, or a restart from its disk. */
  start(name: string): void {
    const node = this.node(name);
    assert(node.server === null, `${name} is already up`);
    const { clock, network, layout, log } = this.setup;
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
        timers: clock.timers(),
        random: node.random.split(),
        log: (line) => log.add(clock.now(), name, line),
      },
      ...(this.setup.tuning === undefined ? {} : { tuning: this.setup.tuning }),
      ...(this.setup.bugs === undefined ? {} : { bugs: this.setup.bugs }),
      isAdmin: (from) => from === adminName,
      onFatal: (error) => this.setup.onServerError(name, error),
    });
    node.server = server;
    node.transport = transport;
    log.add(clock.now(), name, node.incarnation === 1 ? 'start' : `restart ${node.incarnation}`);
    server.start().catch((error: unknown) => {
      if (node.server === server) this.setup.onServerError(name, error);
    });
  }

  /** Process death and power loss; returns what the disk lost. */
  crash(name: string): CrashReport {
    const node = this.node(name);
    assert(node.server !== null && node.transport !== null, `${name} is already down`);
    node.server.crash();
    node.server = null;
    void node.transport.close();
    node.transport = null;
    const report = node.disk.crash();
    const { clock, log } = this.setup;
    log.add(clock.now(), name, `crash: ${report.bytesLost} unsynced bytes lost, ` +
      `${report.filesTorn} files torn, ${report.directoryOperationsLost} names lost`);
    return report;
  }

  isUp(name: string): boolean {
    return this.node(name).server !== null;
  }

  upServers(): string[] {
    return this.names.filter((name) => this.isUp(name));
  }

  downServers(): string[] {
    return this.names.filter((name) => !this.isUp(name));
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
