/**
 * One seeded run of the whole sharded cluster in one process (DESIGN §5; FoundationDB's
 * simulation, TigerBeetle's VOPR): the servers of a controller group and of the replica
 * groups, the clients and an administrator, over one virtual clock, one simulated network
 * and one simulated disk per server, every choice drawn from one seed.
 *
 * A run has an active phase of `steps` clock events, in which clients issue operations, the
 * administrator reconfigures and the nemesis injects faults, and a quiet phase, in which the
 * faults are repaired, the actors finish what they started and the cluster settles. After
 * every event the SafetyMonitor checks the servers' views; at the end the written values
 * are checked (write-checks.ts), every recorded configuration must be published, and the
 * history, with one final read of every key, must be linearizable (`shardkv lincheck`).
 * Then the cluster must make progress (progress-checks.ts): leaders within a bound of the
 * repair, an administrator's request published, every client's next append completed.
 */
import { explanationLines, lincheckText, verdictPhrase } from '../../checker/lincheck/index.js';
import type { ControllerState } from '../../spec/controller/state-machine.js';
import { key2shard } from '../../spec/group/index.js';
import { SeededRandom } from '../../impl/random/seeded-random.js';
import type { Random } from '../../impl/io/random.js';
import type { ServerView } from '../../impl/node/api.js';
import { MemoryTraceSink, type TraceSink } from '../../impl/trace/trace-sink.js';
import type { NetworkEvent, NetworkStatistics } from '../../impl/sim/simulated-network.js';
import { SimulatedNetwork } from '../../impl/sim/simulated-network.js';
import { VirtualClock } from '../../impl/sim/virtual-clock.js';
import { type AdministratorStatistics, runAdministrator } from './administrator.js';
import { serverBugsFor } from './bugs.js';
import { adminName, SimulatedCluster } from './cluster.js';
import { bytesDigest, EventLog, loggedTimers } from './event-log.js';
import { HistoryRecorder } from './history.js';
import { Nemesis, type FaultStatistics } from './nemesis.js';
import { DiskDamage, type DiskDamageOutcome } from './disk-damage.js';
import { checkSettled } from './liveness-checks.js';
import { clusterLayout, serverNames, type SimulationOptions } from './options.js';
import {
  checkOperationsComplete, checkProbeTokens, LeaderWatch, probeAdministrator, probeClients,
  progressBounds,
} from './progress-checks.js';
import type { Runtime } from './runtime.js';
import { SafetyMonitor, type Violation } from './safety-monitor.js';
import { serverValueLimit } from './large-values.js';
import { describeSwarm, drawSwarm, swarmTuning, type SwarmDraws } from './swarm.js';
import { clientName, runClient, type KeyValueClerk } from './workload.js';
import type { AdminClerk } from './administrator.js';
import { ControllerAnswers, queryHistory } from './answer-checks.js';
import { groupReplies, type GroupReplies } from './reply-checks.js';
import type { Config } from '../../spec/controller/types.js';
import { checkWrites, finalValues } from './write-checks.js';

/** After the actors are done, the cluster runs this long before the final checks. */
export const settleTimeMs = 2_000;
/** The quiet phase ends after this long even if an actor is still busy (a liveness bug). */
export const quietTimeMsMax = 60_000;
/**
 * Half of the seeds make every server snapshot and compact its log once it holds more than
 * one of these many bytes (CONTRACT --max-raft-state), so InstallSnapshot, snapshot files and
 * their recovery run too; the other half never snapshot.
 */
export const maxRaftStateBytesChoices: readonly number[] = [4_096, 16_384];

/** The history check gives up (a failure, never a pass) after this long. */
export const lincheckTimeLimitSeconds = 60;

export interface Failure extends Violation {
  readonly timeMs: number;
  /** The last notable events (neither frames nor timers). */
  readonly lastEvents: readonly string[];
  /** The last ten events of every kind. */
  readonly recentEvents: readonly string[];
  /** More lines on the violation (lincheck's explanation). */
  readonly explanation: readonly string[];
}

export interface SimulationResult {
  readonly seed: number;
  /** The features the seed drew (swarm.ts). */
  readonly swarm: SwarmDraws;
  readonly failure: Failure | null;
  readonly simulatedMs: number;
  readonly events: number;
  readonly operations: { readonly ok: number; readonly unknown: number };
  readonly configurations: { readonly recorded: number; readonly published: number };
  readonly reconfigurations: AdministratorStatistics;
  readonly faults: FaultStatistics;
  readonly network: NetworkStatistics;
  readonly eventLines: number;
  readonly digest: string;
  /** Every event line, when options.keepEventLines. */
  readonly lines: readonly string[] | null;
  /** The history as `shardkv lincheck` reads it. */
  readonly history: string;
  /** Wall time of the history check (lincheck's own timer; not part of the run's digest). */
  readonly lincheckSeconds: number;
  /** With options.trace and no sinks given: each server's trace lines, by name. */
  readonly traces: ReadonlyMap<string, readonly string[]> | null;
  /** What disk damage the run planted and how the server dealt with it (disk-damage.ts). */
  readonly diskDamage: readonly DiskDamageOutcome[];
}

/**
 * `traceSink` (with options.trace): where each server's trace goes; by default the lines are
 * kept in memory and returned as `traces`.
 */
export async function runSimulation(
  options: SimulationOptions,
  runtime: Runtime,
  traceSink?: (server: string) => TraceSink,
): Promise<SimulationResult> {
  const simulation = new Simulation(options, runtime, traceSink);
  return simulation.run();
}

class Simulation {
  private readonly clock = new VirtualClock();
  private readonly log: EventLog;
  private readonly network: SimulatedNetwork;
  private readonly cluster: SimulatedCluster;
  private readonly history = new HistoryRecorder();
  private readonly monitor = new SafetyMonitor();
  private readonly nemesis: Nemesis;
  private readonly diskDamage: DiskDamage;
  private readonly streams: Record<'admin' | 'clients', Random>;
  /** The servers' snapshot bound, drawn from the seed. */
  private readonly maxRaftStateBytes: number | null;
  /** The features this seed runs with (swarm.ts). */
  private readonly swarm: SwarmDraws;
  private readonly traceSinks: Map<string, TraceSink> | null;
  private failure: Failure | null = null;
  /** The clients' operations, counted before the final reads join the history. */
  private operationCounts = { ok: 0, unknown: 0, pending: 0 };
  private lincheckSeconds = 0;
  private stopping = false;
  private events = 0;
  private readonly reconfigurations: AdministratorStatistics =
    { requests: 0, ok: 0, refused: 0, unknown: 0 };
  private readonly leaders: LeaderWatch;
  private readonly answers: ControllerAnswers;
  private readonly replies: GroupReplies;
  /** The configurations the administrator's requests were answered with, by number. */
  private readonly told = new Map<number, Config>();
  private clientClerks: readonly KeyValueClerk[] = [];
  private adminClerk: AdminClerk | null = null;

  constructor(
    private readonly options: SimulationOptions,
    private readonly runtime: Runtime,
    traceSink?: (server: string) => TraceSink,
  ) {
    const root = new SeededRandom(options.seed);
    const networkRandom = root.split();
    const clusterRandom = root.split();
    const nemesisRandom = root.split();
    this.streams = { admin: root.split(), clients: root.split() };
    this.maxRaftStateBytes = snapshotBound(root.split());
    this.swarm = drawSwarm(root.split());
    const tuning = {
      ...swarmTuning(this.swarm), ...runtime.tuning, maxRaftStateBytes: this.maxRaftStateBytes,
      ...serverValueLimit(options.valueBytes),
    };
    this.log = new EventLog(options.keepEventLines);
    this.network = new SimulatedNetwork(this.clock, networkRandom, {},
      (event) => this.logNetworkEvent(event));
    const layout = clusterLayout(options);
    // Split last, so that the streams above are what they were before disk damage existed.
    this.diskDamage = new DiskDamage(root.split(), this.clock, this.log,
      (invariant, detail) => this.fail(invariant, detail), options.faults);
    const sinkOf = traceSink ?? (() => new MemoryTraceSink());
    this.traceSinks = options.trace
      ? new Map(serverNames(layout).map((name) => [name, sinkOf(name)])) : null;
    const bugs = options.bug === null ? undefined : serverBugsFor(options.bug);
    if (options.bug !== null && bugs === undefined) throw new Error(`no bug ${options.bug}`);
    this.cluster = new SimulatedCluster({
      clock: this.clock, network: this.network, layout, log: this.log,
      random: clusterRandom, createServer: runtime.createServer,
      tuning,
      ...(bugs === undefined ? {} : { bugs }),
      onServerError: (name, error) => this.fail('ServerError', `${name}: ${describe(error)}`),
      onLastView: (view) => this.check([view]),
      ...(this.traceSinks === null ? {} : { traceSinks: this.traceSinks }),
      diskDamage: this.diskDamage,
    });
    this.answers = new ControllerAnswers(layout.controllers);
    this.replies = groupReplies(layout, bugs, tuning, (name) => this.cluster.view(name));
    this.leaders = new LeaderWatch(['controller', ...options.gids.map((gid) => `g${gid}`)]);
    this.nemesis = new Nemesis({
      clock: this.clock, log: this.log, cluster: this.cluster, network: this.network,
      layout, mode: options.faults, stopping: () => this.stopping,
      leaderChurn: this.swarm.leaderChurn,
    }, nemesisRandom);
  }

  async run(): Promise<SimulationResult> {
    const { seed, faults, bug } = this.options;
    const bound = this.maxRaftStateBytes;
    this.log.add(0, 'simulator', `seed ${seed}, faults ${faults}, bug ${bug ?? 'none'}, ` +
      `snapshots ${bound === null ? 'never' : `over ${bound} bytes of log`}, ` +
      describeSwarm(this.swarm));
    for (const name of this.cluster.names) this.cluster.start(name);
    let actorsDone = false;
    this.startActors().then(
      () => { actorsDone = true; },
      (error: unknown) => this.fail('ClientError', describe(error)),
    );
    const { steps, activeTimeMsMax } = this.options;
    await this.drive(() => this.events >= steps || this.clock.now() >= activeTimeMsMax);
    this.stopping = true;
    this.log.add(this.clock.now(), 'simulator', 'active phase over');
    const quietUntil = this.clock.now() + quietTimeMsMax;
    await this.drive(() => actorsDone || this.clock.now() >= quietUntil);
    const settledAt = this.clock.now() + settleTimeMs;
    await this.drive(() => this.clock.now() >= settledAt);
    this.operationCounts = this.history.counts();
    // Safety first: a lost write explains a stuck migration better than the other way round.
    if (this.failure === null) this.checkValues();
    if (this.failure === null && !actorsDone) {
      this.fail('Liveness', `clients or the administrator still busy after ${quietTimeMsMax} ms`);
    }
    const settled = this.failure === null
      ? checkSettled(this.controllerState(), this.monitor.groupStates(), settleTimeMs) : null;
    if (settled !== null) this.fail(settled.invariant, settled.detail);
    if (this.failure === null) await this.checkProgress();
    return this.result();
  }

  /**
   * The progress checks (progress-checks.ts), after the safety checks passed: leaders within
   * their bound of the repair, then the administrator's request published, then every
   * client's append completed and kept once.
   */
  private async checkProgress(): Promise<void> {
    const healedAt = this.nemesis.repairedAtMs;
    if (healedAt === null) return this.fail('Liveness', 'the faults were never repaired');
    if (this.options.faults === 'none') {
      const { ok, unknown, pending } = this.operationCounts;
      const few = checkOperationsComplete(ok, unknown + pending);
      if (few !== null) return this.fail(few.invariant, few.detail);
    }
    const { leaderAfterHealMs } = progressBounds;
    await this.drive(() => this.leaders.allLed() ||
      this.clock.now() > healedAt + leaderAfterHealMs);
    const leaderless = this.failure === null ? this.leaders.check(healedAt) : null;
    if (leaderless !== null) return this.fail(leaderless.invariant, leaderless.detail);
    const { options } = this;
    const busyShards = this.busyShards();
    await this.driveUntilSettled(() =>
      probeAdministrator(this.adminClerk!, this.clock, options.gids, busyShards, this.told));
    await this.driveUntilSettled(() =>
      queryHistory((num) => this.adminClerk!.query(num), this.told));
    const refused = new Set<number>();
    await this.driveUntilSettled(() => probeClients(this.clientClerks, options.keys,
      this.history, clientName, refused));
    const settledAt = this.clock.now() + settleTimeMs;
    await this.drive(() => this.clock.now() >= settledAt);
    if (this.failure !== null) return;
    const values = finalValues(this.monitor.groupStates(), options.keys, options.shardCount);
    const kept = checkProbeTokens(options.clients, options.keys, values, refused);
    if (kept !== null) this.fail(kept.invariant, kept.detail);
  }

  /** Runs events until `check` resolves, then fails with its violation, if any. */
  private async driveUntilSettled(check: () => Promise<Violation | null>): Promise<void> {
    if (this.failure !== null) return;
    let verdict: Violation | null | undefined;
    check().then((found) => { verdict = found; },
      (error: unknown) => this.fail('ClientError', describe(error)));
    await this.drive(() => verdict !== undefined);
    if (verdict) this.fail(verdict.invariant, verdict.detail);
  }

  private busyShards(): number[] {
    const { keys, shardCount } = this.options;
    return [...new Set(keys.map((key) => key2shard(key, shardCount)))];
  }

  private startActors(): Promise<unknown> {
    const { options, runtime } = this;
    const environment = (name: string, random: Random) => ({
      name, layout: clusterLayout(options), transport: this.network.endpoint(name),
      clock: this.clock, random,
      timers: loggedTimers(this.clock.timers(),
        (timer) => this.log.add(this.clock.now(), name, `timer ${timer}`, false)),
    });
    const busyShards = this.busyShards();
    const adminRandom = this.streams.admin;
    this.adminClerk = runtime.createAdminClerk(environment(adminName, adminRandom.split()));
    const admin = runAdministrator({
      clock: this.clock, log: this.log, gids: options.gids, busyShards,
      shardCount: options.shardCount, stopping: () => this.stopping, told: this.told,
      sessionExpiry: this.swarm.sessionExpiry,
    }, this.adminClerk, adminRandom, this.reconfigurations);
    const setup = {
      clock: this.clock, log: this.log, history: this.history, keys: options.keys,
      valueBytes: options.valueBytes, stopping: () => this.stopping,
    };
    const clerks: KeyValueClerk[] = [];
    const clients = Array.from({ length: options.clients }, (_, index) => {
      const random = this.streams.clients.split();
      const clerk = runtime.createClerk(environment(clientName(index), random.split()));
      clerks.push(clerk);
      return runClient(setup, index, clerk, random);
    });
    this.clientClerks = clerks;
    return Promise.all([this.nemesis.run(), admin, ...clients]);
  }

  /** Runs events, checking after each, until `done` or a failure. */
  private async drive(done: () => boolean): Promise<void> {
    while (this.failure === null && !done()) {
      let ran: boolean;
      try {
        ran = await this.clock.stepSettled();
      } catch (error) {
        this.fail('Exception', describe(error));
        return;
      }
      if (!ran) return this.fail('Liveness', 'no event left to run');
      this.events++;
      const views = this.cluster.views();
      this.check(views);
      this.nemesis.observe(views);
      if (this.nemesis.repairedAtMs !== null) this.leaders.observe(views, this.clock.now());
    }
  }

  private check(views: readonly ServerView[]): void {
    const violation = this.monitor.observe(views);
    if (violation !== null) return this.fail(violation.invariant, violation.detail);
    for (const view of views) {
      const wrong = this.answers.observe(view);
      if (wrong !== null) return this.fail(wrong.invariant, wrong.detail);
    }
  }

  /** NoLostWrite and ExactlyOnce, then the history with a final read of every key. */
  private checkValues(): void {
    const { keys, shardCount } = this.options;
    const values = finalValues(this.monitor.groupStates(), keys, shardCount);
    const violation = checkWrites(this.history.all(), values);
    if (violation !== null) return this.fail(violation.invariant, violation.detail);
    for (const [key, value] of values) {
      this.history.returned(this.history.call('final-read', 'get', key), value);
    }
    const verdict = lincheckText(this.history.toJsonLines(),
      { timeLimitSeconds: lincheckTimeLimitSeconds });
    this.lincheckSeconds = verdict.seconds;
    if (verdict.verdict !== 'linearizable') {
      this.fail('Linearizability', verdictPhrase(verdict), verdict.explanation === undefined ? [] : explanationLines(verdict.explanation));
    }
  }

  /** The applied state of the controller replica of highest applied index that is up. */
  private controllerState(): ControllerState | null {
    let best: { appliedIndex: number; state: ControllerState } | null = null;
    for (const view of this.cluster.views()) {
      if (view.kind !== 'controller') continue;
      if (best === null || view.appliedIndex > best.appliedIndex) best = view;
    }
    return best?.state ?? null;
  }

  private configurations(): { recorded: number; published: number } {
    const state = this.controllerState();
    return { recorded: (state?.configs.length ?? 1) - 1, published: state?.current ?? 0 };
  }

  private fail(invariant: string, detail: string, explanation: readonly string[] = []): void {
    if (this.failure !== null) return;
    this.log.add(this.clock.now(), 'simulator', `FAILED ${invariant}: ${detail}`);
    this.failure = {
      invariant, detail, timeMs: this.clock.now(), explanation,
      lastEvents: this.log.lastNotableLines(), recentEvents: this.log.lastLines().slice(-10),
    };
  }

  private logNetworkEvent(event: NetworkEvent): void {
    if (event.kind === 'send') {
      const wrong = this.replies.sent(event);
      if (wrong !== null) this.fail(wrong.invariant, wrong.detail);
      return;
    }
    this.replies.delivered(event);
    const wrong = this.answers.delivered(event);
    if (wrong !== null) this.fail(wrong.invariant, wrong.detail);
    const what = event.kind === 'deliver'
      ? `from ${event.from} ${event.frame.length}b ${bytesDigest(event.frame)}`
      : `lost from ${event.from}: ${event.reason}`;
    this.log.add(event.time, event.to, what, false);
  }

  private result(): SimulationResult {
    const counts = this.operationCounts;
    return {
      seed: this.options.seed,
      swarm: this.swarm,
      failure: this.failure,
      simulatedMs: this.clock.now(),
      events: this.events,
      operations: { ok: counts.ok, unknown: counts.unknown + counts.pending },
      configurations: this.configurations(),
      reconfigurations: { ...this.reconfigurations },
      faults: this.nemesis.statistics,
      network: { ...this.network.statistics },
      eventLines: this.log.count,
      digest: this.log.digest(),
      lines: this.log.lines(),
      history: this.history.toJsonLines(),
      lincheckSeconds: this.lincheckSeconds,
      traces: memoryTracesOf(this.traceSinks),
      diskDamage: [...this.diskDamage.outcomes],
    };
  }
}

function memoryTracesOf(sinks: ReadonlyMap<string, TraceSink> | null):
  ReadonlyMap<string, readonly string[]> | null {
  if (sinks === null) return null;
  const traces = new Map<string, readonly string[]>();
  for (const [name, sink] of sinks) {
    if (!(sink instanceof MemoryTraceSink)) return null;
    traces.set(name, sink.lines);
  }
  return traces;
}

function snapshotBound(random: Random): number | null {
  if (random.nextInt(2) === 0) return null;
  return maxRaftStateBytesChoices[random.nextInt(maxRaftStateBytesChoices.length)]!;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
