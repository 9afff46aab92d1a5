/**
 * The fault injector of a simulated run (Jepsen's nemesis, FoundationDB's and TigerBeetle's
 * simulated faults). At seeded intervals it crashes a server (a leader half of the time, and
 * never a second server of one Raft group, so every group keeps a majority), at once or at
 * one of its next disk writes, and restarts it later from its disk; cuts the network
 * (isolates a server, or splits the servers in two sides) and heals it later; or switches
 * the network between reliable and unreliable (drops, duplicates, late frames). `--faults`
 * selects which kinds. How often faults come is itself drawn per seed (swarm testing, as VOPR varies its fault rates per seed): stormy
 * seeds stress recovery, calm ones let clients get much done between faults. When the active
 * phase ends it heals everything and restarts every server that is down.
 */
import type { Random } from '../../impl/io/random.js';
import type { ClusterLayout, ServerView } from '../../impl/node/api.js';
import {
  reliableNetwork, type NetworkFaults, type SimulatedNetwork,
} from '../../impl/sim/simulated-network.js';
import type { VirtualClock } from '../../impl/sim/virtual-clock.js';
import type { SimulatedCluster } from './cluster.js';
import type { EventLog } from './event-log.js';
import type { FaultMode } from './options.js';

/** The unreliable network: the MIT lab's 10% loss, plus duplicates and stale frames. */
export const unreliableNetwork: NetworkFaults = {
  delayMsMin: 0,
  delayMsMax: 26,
  dropRate: 0.1,
  duplicateRate: 0.05,
  lateRate: 0.05,
  lateDelayMsMax: 3_000,
};

export interface NemesisSetup {
  readonly clock: VirtualClock;
  readonly log: EventLog;
  readonly cluster: SimulatedCluster;
  readonly network: SimulatedNetwork;
  readonly layout: ClusterLayout;
  readonly mode: FaultMode;
  readonly stopping: () => boolean;
}

export interface FaultStatistics {
  crashes: number;
  restarts: number;
  partitions: number;
  unreliablePeriods: number;
}

/** A planned crash falls at one of the server's next this many disk writes. */
export const crashWritesMax = 12;

/**
 * Faults come every [min, max] ms, max drawn per seed from these; a crashed server
 * restarts within [min, max] ms; a cut network heals within [min, max] ms.
 */
export const faultIntervalMsMin = 50;
export const faultIntervalMsMaxChoices: readonly number[] = [300, 800, 1_500];
export const downTimeMs: readonly [number, number] = [20, 1_500];
export const partitionTimeMs: readonly [number, number] = [50, 2_000];

type Fault = 'crash' | 'partition' | 'unreliable';

export class Nemesis {
  readonly statistics: FaultStatistics = {
    crashes: 0, restarts: 0, partitions: 0, unreliablePeriods: 0,
  };
  /** When the active phase's faults were repaired (the progress checks count from it). */
  repairedAtMs: number | null = null;
  private partitioned = false;
  private unreliable = false;
  private readonly faults: readonly Fault[];
  private readonly intervalMs: readonly [number, number];

  constructor(private readonly setup: NemesisSetup, private readonly random: Random) {
    const { mode } = setup;
    const crash: Fault[] = mode === 'crash' || mode === 'all' ? ['crash'] : [];
    const net: Fault[] = mode === 'net' || mode === 'all' ? ['partition', 'unreliable'] : [];
    this.faults = [...crash, ...net];
    const choices = faultIntervalMsMaxChoices;
    this.intervalMs = [faultIntervalMsMin, choices[random.nextInt(choices.length)]!];
  }

  /** Injects faults until the active phase ends, then repairs everything. */
  async run(): Promise<void> {
    const { clock, log } = this.setup;
    if (this.faults.length > 0) {
      log.add(clock.now(), 'nemesis', `${this.faults.join(', ')} every ` +
        `${this.intervalMs[0]}-${this.intervalMs[1]} ms`);
    }
    while (this.faults.length > 0 && !this.setup.stopping()) {
      await clock.sleep(draw(this.random, this.intervalMs));
      if (this.setup.stopping()) break;
      const fault = this.faults[this.random.nextInt(this.faults.length)]!;
      if (fault === 'crash') this.crashOne();
      else if (fault === 'partition') this.cutNetwork();
      else this.toggleUnreliable();
    }
    this.repair();
  }

  private crashOne(): void {
    const { cluster, clock } = this.setup;
    const candidates = this.crashCandidates();
    if (candidates.length === 0) return;
    const leaders = candidates.filter((name) => roleOf(cluster.views(), name) === 'leader');
    const pool = leaders.length > 0 && this.random.nextInt(2) === 0 ? leaders : candidates;
    const name = pool[this.random.nextInt(pool.length)]!;
    const restartLater = () => {
      this.statistics.crashes++;
      clock.schedule(draw(this.random, downTimeMs), () => {
        if (this.setup.stopping() || cluster.isUp(name) || cluster.isStopped(name)) return;
        cluster.start(name);
        this.statistics.restarts++;
      });
    };
    if (this.random.nextInt(2) === 0) {
      cluster.crash(name);
      restartLater();
    } else {
      cluster.crashDuringWrite(name, 1 + this.random.nextInt(crashWritesMax), restartLater);
    }
  }

  /** Servers that are up in a Raft group with none down or planned to crash. */
  private crashCandidates(): string[] {
    const { layout, cluster } = this.setup;
    const raftGroups = [layout.controllers, ...Object.values(layout.groups)];
    return raftGroups
      .filter((servers) => servers.every((name) =>
        cluster.isUp(name) && !cluster.isCrashPlanned(name)))
      .flat();
  }

  private cutNetwork(): void {
    const { network, cluster, clock, log } = this.setup;
    if (this.partitioned) return;
    const names = cluster.names;
    if (this.random.nextInt(2) === 0) {
      const name = names[this.random.nextInt(names.length)]!;
      network.isolate(name);
      log.add(clock.now(), 'nemesis', `isolate ${name}`);
    } else {
      const sides: [string[], string[]] = [[], []];
      for (const name of names) sides[this.random.nextInt(2)]!.push(name);
      network.partition(sides);
      log.add(clock.now(), 'nemesis', `partition ${sides[0].join(',')} | ${sides[1].join(',')}`);
    }
    this.partitioned = true;
    this.statistics.partitions++;
    clock.schedule(draw(this.random, partitionTimeMs), () => {
      if (!this.partitioned) return;
      this.heal();
    });
  }

  private heal(): void {
    const { network, clock, log } = this.setup;
    network.heal();
    this.partitioned = false;
    log.add(clock.now(), 'nemesis', 'heal');
  }

  private toggleUnreliable(): void {
    const { network, clock, log } = this.setup;
    this.unreliable = !this.unreliable;
    network.setFaults(this.unreliable ? unreliableNetwork : reliableAgain);
    if (this.unreliable) this.statistics.unreliablePeriods++;
    log.add(clock.now(), 'nemesis', `network ${this.unreliable ? 'unreliable' : 'reliable'}`);
  }

  private repair(): void {
    const { cluster, network, clock, log } = this.setup;
    if (this.partitioned) this.heal();
    if (this.unreliable) this.toggleUnreliable();
    cluster.cancelPlannedCrashes();
    for (const name of cluster.downServers()) {
      cluster.start(name);
      this.statistics.restarts++;
    }
    network.setFaults(reliableAgain);
    this.repairedAtMs = clock.now();
    log.add(clock.now(), 'nemesis', 'repaired: every server up, the network reliable');
  }
}

/** The reliable network, with no late frames left configured. */
const reliableAgain: NetworkFaults = { ...reliableNetwork, lateRate: 0 };

function draw(random: Random, [min, max]: readonly [number, number]): number {
  return min + random.nextInt(max - min + 1);
}

function roleOf(views: readonly ServerView[], name: string): string | undefined {
  return views.find((view) => view.name === name)?.raft.role;
}
