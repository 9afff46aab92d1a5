/**
 * The fault injector of a simulated run (Jepsen's nemesis, FoundationDB's and TigerBeetle's
 * simulated faults). At seeded intervals it crashes a server (a leader half of the time, and
 * never a second server of one Raft group, so every group keeps a majority), at once or at
 * one of its next disk writes, and restarts it later from its disk; cuts the network
 * (isolates a server, or splits the servers in two sides) and heals it later; or switches
 * the network between reliable and unreliable (drops, duplicates, late frames). `--faults`
 * selects which kinds. How often faults come is itself drawn per seed (swarm testing, as VOPR varies its fault rates per seed): stormy
 * seeds stress recovery, calm ones let clients get much done between faults. Seeds with
 * leader churn (swarm.ts) also cut bridges and restart crashed servers quickly. When the
 * active phase ends it heals everything and restarts every server that is down.
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
import { quickDownTimeMs } from './swarm.js';

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
  /** The seed drew leader churn (swarm.ts): bridges and quick restarts. */
  readonly leaderChurn: boolean;
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

/**
 * With leader churn (swarm.ts): faults come this often, and between unreliable periods the
 * network is slow (a new leader's first AppendEntries and a rival's vote request cross).
 */
export const churnFaultIntervalMs: readonly [number, number] = [20, 150];
/** Leader churn: a recent voter's crash or a recent leader's cut comes this soon. */
export const churnDelayMs: readonly [number, number] = [0, 80];
/** Leader churn: how long a recent leader stays cut off. */
export const churnIsolationMs: readonly [number, number] = [50, 800];
export const slowNetwork: NetworkFaults = {
  delayMsMin: 5, delayMsMax: 60, dropRate: 0, duplicateRate: 0,
};

type Fault = 'crash' | 'partition' | 'unreliable';

export class Nemesis {
  readonly statistics: FaultStatistics = {
    crashes: 0, restarts: 0, partitions: 0, unreliablePeriods: 0,
  };
  /** When the active phase's faults were repaired (the progress checks count from it). */
  repairedAtMs: number | null = null;
  private partitioned = false;
  /** Network cuts so far: a heal scheduled for one cut leaves a later cut alone. */
  private cuts = 0;
  /** Leader churn: the last term each server was seen leading, and its last vote seen. */
  private readonly leaderTerms = new Map<string, number>();
  private readonly votes = new Map<string, string>();
  private unreliable = false;
  private readonly faults: readonly Fault[];
  private readonly intervalMs: readonly [number, number];

  constructor(private readonly setup: NemesisSetup, private readonly random: Random) {
    const { mode } = setup;
    const crash: Fault[] = mode === 'crash' || mode === 'all' ? ['crash'] : [];
    const net: Fault[] = mode === 'net' || mode === 'all' ? ['partition', 'unreliable'] : [];
    this.faults = [...crash, ...net];
    const choices = faultIntervalMsMaxChoices;
    const drawn: readonly [number, number] =
      [faultIntervalMsMin, choices[random.nextInt(choices.length)]!];
    this.intervalMs = setup.leaderChurn ? churnFaultIntervalMs : drawn;
  }

  /** The network between unreliable periods of the active phase. */
  private calmNetwork(): NetworkFaults {
    return this.setup.leaderChurn ? slowNetwork : reliableAgain;
  }

  /** Injects faults until the active phase ends, then repairs everything. */
  async run(): Promise<void> {
    const { clock, log, network } = this.setup;
    if (this.setup.leaderChurn) network.setFaults(slowNetwork);
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
    const { cluster } = this.setup;
    const candidates = this.crashCandidates();
    if (candidates.length === 0) return;
    const leaders = candidates.filter((name) => roleOf(cluster.views(), name) === 'leader');
    const pool = leaders.length > 0 && this.random.nextInt(2) === 0 ? leaders : candidates;
    this.crash(pool[this.random.nextInt(pool.length)]!);
  }

  /** Crashes `name` at once or at one of its next disk writes, and restarts it later. */
  private crash(name: string): void {
    const { cluster, clock } = this.setup;
    const restartLater = () => {
      this.statistics.crashes++;
      const down = this.setup.leaderChurn ? quickDownTimeMs : downTimeMs;
      clock.schedule(draw(this.random, down), () => {
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

  /**
   * Leader churn's faults aimed at elections (swarm.ts), seen in the views after every event:
   * a server that just granted its vote crashes soon after, half of the time (the double
   * vote needs its restart within the rival candidate's election); a new leader is cut off
   * soon after its election, half of the time (Figure 8 needs leaders whose entries reached
   * no one, or one follower only).
   */
  observe(views: readonly ServerView[]): void {
    if (!this.setup.leaderChurn || this.setup.stopping()) return;
    const { clock } = this.setup;
    for (const { name, raft } of views) {
      if (raft.role === 'leader' && this.leaderTerms.get(name) !== raft.currentTerm) {
        this.leaderTerms.set(name, raft.currentTerm);
        if (this.random.nextInt(2) === 0) {
          clock.schedule(draw(this.random, churnDelayMs), () => this.isolateLeader(name));
        }
      }
      const vote = raft.votedFor === null || raft.votedFor === raft.id ? null
        : `${raft.currentTerm}:${raft.votedFor}`;
      if (vote !== null && this.votes.get(name) !== vote) {
        this.votes.set(name, vote);
        if (this.random.nextInt(2) === 0) {
          clock.schedule(draw(this.random, churnDelayMs), () => {
            if (this.setup.stopping() || !this.crashCandidates().includes(name)) return;
            this.setup.log.add(clock.now(), 'nemesis', `crash ${name}, a recent voter`);
            this.crash(name);
          });
        }
      }
    }
  }

  /** Cuts a recent leader off, in place of any cut network, for a short while. */
  private isolateLeader(name: string): void {
    const { network, clock, log, cluster } = this.setup;
    if (this.setup.stopping() || !cluster.isUp(name)) return;
    if (this.partitioned) this.heal();
    network.isolate(name);
    log.add(clock.now(), 'nemesis', `isolate ${name}, a recent leader`);
    this.partitioned = true;
    this.statistics.partitions++;
    const cut = ++this.cuts;
    clock.schedule(draw(this.random, churnIsolationMs), () => {
      if (this.partitioned && this.cuts === cut) this.heal();
    });
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
    // A seed without leader churn draws from two shapes, as before bridges existed.
    const shape = this.random.nextInt(this.setup.leaderChurn ? 3 : 2);
    if (shape === 0) {
      const name = names[this.random.nextInt(names.length)]!;
      network.isolate(name);
      log.add(clock.now(), 'nemesis', `isolate ${name}`);
    } else if (shape === 1) {
      const sides: [string[], string[]] = [[], []];
      for (const name of names) sides[this.random.nextInt(2)]!.push(name);
      network.partition(sides);
      log.add(clock.now(), 'nemesis', `partition ${sides[0].join(',')} | ${sides[1].join(',')}`);
    } else {
      this.cutBridges();
    }
    this.partitioned = true;
    this.statistics.partitions++;
    const cut = ++this.cuts;
    clock.schedule(draw(this.random, partitionTimeMs), () => {
      if (this.partitioned && this.cuts === cut) this.heal();
    });
  }

  /**
   * In every Raft group two servers lose their link and the third reaches both (Jepsen's
   * bridge): each of the two elects itself through the bridge in turn, so leaders alternate
   * while the other's entries are not yet on the bridge (Figure 8's leader changes).
   */
  private cutBridges(): void {
    const { network, clock, log, layout } = this.setup;
    const cut: string[] = [];
    for (const servers of [layout.controllers, ...Object.values(layout.groups)]) {
      if (servers.length < 3) continue;
      const first = this.random.nextInt(servers.length);
      const second = (first + 1 + this.random.nextInt(servers.length - 1)) % servers.length;
      network.partition([[servers[first]!], [servers[second]!]]);
      cut.push(`${servers[first]}/${servers[second]}`);
    }
    log.add(clock.now(), 'nemesis', `bridge: cut ${cut.join(', ')}`);
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
    network.setFaults(this.unreliable ? unreliableNetwork : this.calmNetwork());
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
