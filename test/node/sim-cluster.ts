// Shared by the node shell and clerk tests: servers and clerks over the simulated adapters
// (virtual clock, seeded network, one crashing MemoryDisk per server), all from one seed.
import { Clerk } from '../../impl/clerk/clerk.js';
import type {
  ClusterLayout, Server, ServerBugs, ServerTuning, StepRecord,
} from '../../impl/node/api.js';
import { createServer } from '../../impl/node/server.js';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import { MemoryDisk } from '../../impl/sim/memory-disk.js';
import { SimulatedNetwork, type NetworkFaults } from '../../impl/sim/simulated-network.js';
import { VirtualClock } from '../../impl/sim/virtual-clock.js';
import type { Transport } from '../../impl/io/transport.js';

/** CONTRACT's names: ctl-0..C-1 and g<gid>-0..N-1. */
export function layoutOf(
  controllers: number,
  gids: readonly number[],
  servers: number,
  shardCount: number,
): ClusterLayout {
  const groups: Record<number, string[]> = {};
  for (const gid of gids) {
    groups[gid] = Array.from({ length: servers }, (_, index) => `g${gid}-${index}`);
  }
  return {
    shardCount,
    controllers: Array.from({ length: controllers }, (_, index) => `ctl-${index}`),
    groups,
  };
}

export interface SimClusterOptions {
  readonly seed: number;
  readonly layout: ClusterLayout;
  readonly tuning?: Partial<ServerTuning>;
  readonly bugs?: ServerBugs;
  readonly faults?: Partial<NetworkFaults>;
  /** Keep every server's step records in `steps` (as a --trace run would write them). */
  readonly recordSteps?: boolean;
  /** Every fsync takes this much simulated time (default: none). */
  readonly syncDelayMs?: number;
  /**
   * Servers prepare snapshots in the background, pausing this much simulated time between
   * pieces (ServerEnvironment.pause; default: none, snapshots are written in their step).
   */
  readonly pauseMs?: number;
}

export class SimCluster {
  readonly clock = new VirtualClock();
  readonly random: SeededRandom;
  readonly network: SimulatedNetwork;
  readonly layout: ClusterLayout;
  readonly disks = new Map<string, MemoryDisk>();
  readonly servers = new Map<string, Server>();
  readonly transports = new Map<string, Transport>();
  readonly logs: string[] = [];
  readonly fatal: unknown[] = [];
  readonly steps: StepRecord[] = [];

  constructor(private readonly options: SimClusterOptions) {
    this.random = new SeededRandom(options.seed);
    this.network = new SimulatedNetwork(this.clock, this.random.split(), options.faults ?? {});
    this.layout = options.layout;
  }

  get names(): string[] {
    return [...this.layout.controllers, ...Object.values(this.layout.groups).flat()];
  }

  /** Starts (or restarts, from its disk) one server. */
  async start(name: string): Promise<Server> {
    let disk = this.disks.get(name);
    if (disk === undefined) {
      const delayMs = this.options.syncDelayMs;
      disk = new MemoryDisk(this.random.split(), delayMs === undefined ? {} : {
        syncDelay: () => this.clock.sleep(delayMs),
      });
      this.disks.set(name, disk);
    }
    const transport = this.network.endpoint(name);
    this.transports.set(name, transport);
    const server = createServer({
      name,
      layout: this.layout,
      environment: {
        transport, fileSystem: disk.mount(), directory: `/nodes/${name}`, clock: this.clock,
        timers: this.clock.timers(), random: this.random.split(),
        log: (line) => this.logs.push(`${this.clock.now()} ${line}`),
        ...(this.options.pauseMs === undefined ? {}
          : { pause: () => this.clock.sleep(this.options.pauseMs!) }),
      },
      ...(this.options.tuning === undefined ? {} : { tuning: this.options.tuning }),
      ...(this.options.bugs === undefined ? {} : { bugs: this.options.bugs }),
      isAdmin: (from) => from.startsWith('admin'),
      onFatal: (error) => this.fatal.push(error),
      ...(this.options.recordSteps === true ? { onStep: (record: StepRecord) => {
        this.steps.push(record);
      } } : {}),
    });
    this.servers.set(name, server);
    await this.settle(server.start(), 1_000);
    return server;
  }

  async startAll(): Promise<void> {
    for (const name of this.names) await this.start(name);
  }

  /** Process death and power loss: the server stops, its unsynced writes may be lost. */
  crash(name: string): void {
    this.servers.get(name)?.crash();
    void this.transports.get(name)?.close();
    this.disks.get(name)?.crash();
  }

  /** A clean shutdown: the server syncs and closes its storage; its disk keeps everything. */
  async stop(name: string): Promise<void> {
    await this.settle(this.servers.get(name)!.stop(), 1_000);
    await this.transports.get(name)?.close();
  }

  clerk(name: string, attemptTimeoutMs?: number): Clerk {
    return new Clerk({
      transport: this.network.endpoint(name), timers: this.clock.timers(), clock: this.clock,
      random: this.random.split(), layout: this.layout,
      ...(attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs }),
    });
  }

  /** Lets `durationMs` of simulated time pass. */
  async run(durationMs: number): Promise<void> {
    await this.clock.runUntilSettled(this.clock.now() + durationMs);
  }

  /** Runs the clock until `promise` settles (at most `limitMs` of simulated time). */
  async settle<T>(promise: Promise<T>, limitMs: number): Promise<T> {
    let done = false;
    const watched = promise.finally(() => {
      done = true;
    });
    const end = this.clock.now() + limitMs;
    await this.clock.runUntilSettled(this.clock.now());
    while (!done && this.clock.now() < end) {
      await this.clock.runUntilSettled(Math.min(end, this.clock.now() + 5));
    }
    if (!done) throw new Error(`not settled within ${limitMs} ms of simulated time`);
    return watched;
  }

  /** The live servers of `names` that report themselves leader. */
  leaders(names: readonly string[]): string[] {
    return names.filter((name) => this.servers.get(name)?.status()?.role === 'leader');
  }
}
