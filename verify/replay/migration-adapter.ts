/**
 * The `migration` model in the runtime: a controller group of three servers (controller-
 * group.ts: its leader runs the migration driver, as the shell does, and its log commits only
 * when a step needs it) and one server per replica group (`g1-0`, ...: the model abstracts
 * each group's Raft away, and serversOf names one server per group), each a real node shell.
 * The scripted clients and the administrator are the replay's own senders. An action becomes
 * the runtime inputs that stand for it:
 * - Join / Leave / Move: the administrator's controller request, committed and answered.
 * - PlanNext: the plan the driver proposed after the last publish commits (or its retry timer
 *   proposes one); once it applies the driver asks src and dst for their facts (it trusts no
 *   belief it did not rebuild): those queries stay held for the trace's Query steps.
 * - Freeze / Install / Delete(s), Query(s, g): the held request the driver sent for shard s
 *   (to g) is delivered (a copy kept when `duplicate`); its reply reaches the driver unless
 *   `lost`. After the answer that completes a shard's facts, what recovery itself sends (an
 *   unfreeze, with that bug) is delivered too, as the model delivers it in the same step.
 * - Publish: the publish the driver proposed once every move was done commits.
 * - CrashDriver: the leading controller crashes; the next one is elected (what the crashed
 *   one had not committed is lost) and its driver starts over: it asks for facts again.
 * - ClientRequest / ClientQuery / ReuseSeq: a client's request frame, its reply to the client
 *   unless lost (then the attempt's timeout); the client runs the model's client step, and a
 *   query that step asks for within the action reads the controller's applied configurations
 *   (a ClientQuery asks the controller); Deliver(i) delivers the kept copy the spec's network
 *   holds at i, and a driver command's copy its reply too, to a sender no longer waiting.
 * ExpireSessions is not replayed: no runtime component sends expire-sessions.
 */
import type { AnyModel, Params } from '../../checker/model.js';
import { key2shard } from '../../spec/group/digest.js';
import type { GroupCommand, GroupResult } from '../../spec/group/types.js';
import type { MigrationAction } from '../../models/migration/model-actions.js';
import { commandsOf, modelPartsInFlight } from '../../models/migration/driver-actions.js';
import {
  modelBugs, serversOf, type MigrationBounds, type MigrationState,
} from '../../models/migration/model-state.js';
import { isBugName } from '../../spec/bug-catalog.js';
import { migrationBugNames } from '../../spec/migration/bugs.js';
import type {
  ControllerCommand, ControllerOperation,
} from '../../spec/controller/state-machine.js';
import type { ClusterLayout } from '../../impl/node/api.js';
import type { ShellFaults } from '../../impl/node/shell-faults.js';
import type { ReplyBody } from '../../impl/node/wire.js';
import { RuntimeDivergence, type RuntimeAdapter } from './adapter.js';
import type { HeldFrame } from './held-network.js';
import {
  ClientBook, migrationBounds, modelController, modelDriver, modelGroup,
} from './migration-observation.js';
import { ControllerGroup, controllerNames } from './controller-group.js';
import { ReplayCluster } from './replay-cluster.js';

const adminName = 'admin';
const clientName = (client: number) => `client-${client}`;

/** Frames a setup may pass around before it is a runaway (STYLE 7: bounded). */
const setupFramesMax = 1_000;

/** The migration invariants, all read from the runtime (the network: the held copies). */
const evaluated = [
  'AtMostOneServer', 'OnlyServerAnswers', 'NoLostWrite', 'ReadsCurrent', 'ExactlyOnce',
  'OneImagePerIdentity', 'UnaffectedServed', 'GarbageBound',
];

/** A kept copy of a request: what the spec's network holds, and the frame that carries it. */
interface KeptCopy {
  readonly to: number;
  readonly command: GroupCommand;
  readonly frame: HeldFrame;
}

function groupRequest(held: HeldFrame): GroupCommand | null {
  if (held.frame.kind !== 'request') return null;
  const body = held.frame.body;
  if (body.type === 'group') return body.command;
  if (body.type === 'kv') return { type: 'client', request: body.request };
  return null;
}

function replyResult(reply: HeldFrame | undefined): GroupResult | null {
  if (reply?.frame.kind !== 'reply' || reply.frame.body.type !== 'group-result') return null;
  return reply.frame.body.result;
}

class MigrationAdapter implements RuntimeAdapter<MigrationState, MigrationAction> {
  readonly comparedVariables = ['controller', 'driver', 'groups', 'clients', 'history'];
  readonly evaluatedInvariants = evaluated;
  readonly cluster: ReplayCluster;
  private readonly group: ControllerGroup;
  private readonly bounds: MigrationBounds;
  private book: ClientBook | null = null;
  private kept: KeptCopy[] = [];
  private adminSeq = 0;
  /** Each client's next controller session seq: a repeated seq would get the cached answer. */
  private readonly querySeqs = new Map<number, number>();
  /** The last state a refusal was asked about and its pending proposal (one per request). */
  private pending: { state: MigrationState; type: 'Publish' | 'PlanNext' | undefined } | null =
    null;

  /** What the runtime cannot be driven by, and why (mbt's walks leave these out). */
  readonly undriven = {
    ExpireSessions: 'no runtime component sends expire-sessions (sessions never expire)',
  };

  readonly refusals = [
    'Join, Leave, Move and ClientQuery while a Publish or a PlanNext is enabled: the ' +
      'runtime\'s controller commits every request through its log, after the publish or ' +
      'plan its driver may have proposed there (at once when the last move was done or a ' +
      'publish applied); the model lets a request overtake them (traces/mbt/' +
      'migration-query-commits-publish)',
  ];

  refusal(action: MigrationAction, before: MigrationState): string | null {
    if (!['Join', 'Leave', 'Move', 'ClientQuery'].includes(action.type)) return null;
    const pending = this.pendingProposal(before);
    return pending === undefined ? null
      : `${action.type} would commit the driver's pending ${pending} first`;
  }

  private pendingProposal(state: MigrationState): 'Publish' | 'PlanNext' | undefined {
    if (this.pending?.state !== state) {
      const type = (['Publish', 'PlanNext'] as const).find((candidate) =>
        this.model.next(state, { type: candidate }) !== null);
      this.pending = { state, type };
    }
    return this.pending.type;
  }

  constructor(
    params: Params,
    bug: string | null,
    private readonly model: AnyModel,
    faults: Partial<ShellFaults>,
  ) {
    this.bounds = migrationBounds(params);
    const groups: Record<number, string[]> = {};
    for (let gid = 1; gid <= this.bounds.groups; gid++) groups[gid] = serversOf(gid);
    const layout: ClusterLayout = {
      shardCount: this.bounds.shards, controllers: controllerNames, groups,
    };
    if (bug !== null && !isBugName(migrationBugNames, bug)) {
      throw new Error(`migration has no bug '${bug}'`);
    }
    const bugs = { ...modelBugs(bug ?? undefined), shell: faults };
    // Elections happen when the replay says: no pre-vote round, no leader lease to wait out.
    // The model's Get is applied by the group at one point of its command order (it leaves
    // no dedup record): the servers' gets go through the log to be applied at one index too.
    // The driver cuts images as the model's does, with the model's window of parts.
    const tuning = { preVote: false, checkQuorum: false, readIndexReads: false,
      imagePartBytes: this.bounds.partBytes, imagePartsInFlight: modelPartsInFlight };
    this.cluster = new ReplayCluster({ layout, tuning, bugs, adminName });
    this.group = new ControllerGroup(this.cluster);
  }

  /** The model's actions name no message contents: a schedule's actions are the same. */
  counterpart(): undefined {
    return undefined;
  }

  async setUp(): Promise<void> {
    const initial = this.model.initialStates()[0] as MigrationState;
    this.book = new ClientBook(this.bounds, initial);
    await this.cluster.startAll(this.cluster.names);
    await this.group.elect(this.group.leader);
    for (let gid = 1; gid <= this.bounds.groups; gid++) await this.elect(serversOf(gid)[0]!);
    // The model's configuration 1: the clients' sessions, join(g1), migrated and published.
    // One commit takes them all (the same entries, in the same order, as one at a time).
    const sessions = Array.from({ length: this.bounds.clients }, (_, client) =>
      ({ from: clientName(client), command: { type: 'register-client' } as const }));
    const join = { type: 'join', groups: { 1: serversOf(1) }, client: adminName,
      seq: this.adminSeq++ } as const;
    const bodies = await this.group.askAll([...sessions, { from: adminName, command: join }]);
    const joined = bodies.at(-1)!;
    if (joined.type !== 'controller-result') {
      throw new RuntimeDivergence(`the controller answered ${JSON.stringify(joined)}`);
    }
    this.fire(this.group.leader, 'driver-tick');
    await this.cluster.settle();
    await this.deliverEverything();
  }

  tearDown(): void {
    for (const name of this.cluster.names) this.cluster.crash(name);
  }

  observe(expected: MigrationState): MigrationState {
    const groups = expected.groups.map((_, index) => this.groupState(index + 1));
    return {
      ...expected,
      controller: modelController(this.group.state(), expected.controller),
      driver: modelDriver(this.group.server().driver!.beliefs),
      groups,
      clients: this.book!.clients,
      history: this.book!.history,
      // The late copies the runtime's network holds (OneImagePerIdentity reads their images).
      network: this.kept.map(({ to, command }) => ({ to, command })),
    };
  }

  async perform(
    action: MigrationAction,
    before: MigrationState,
    after: MigrationState,
  ): Promise<string | null> {
    switch (action.type) {
      case 'Join':
        return this.administer({ type: 'join', groups: { [action.gid]: serversOf(action.gid) } });
      case 'Leave':
        return this.administer({ type: 'leave', gids: [action.gid] });
      case 'Move':
        return this.administer({ type: 'move', shard: action.shard, gid: action.gid });
      case 'PlanNext':
        return this.planNext(after);
      case 'Freeze':
      case 'Install':
      case 'Delete':
        return this.driverStep(commandsOf[action.type], action.shard, null, action);
      case 'Query':
        return this.query(action.shard, action.gid, action.duplicate);
      case 'Publish':
        return this.publish(after);
      case 'CrashDriver':
        return this.crashDriver();
      case 'ClientRequest':
        return this.clientRequest(action.client, action.lost, action.duplicate);
      case 'ClientQuery':
        return this.clientQuery(action.client);
      case 'ReuseSeq':
        if (!this.book!.reuse(action.client)) {
          throw new RuntimeDivergence(`client ${action.client} cannot reuse its seq`);
        }
        return null;
      case 'Deliver':
        return this.deliverCopy(before, action.index, action.lost);
      case 'ExpireSessions':
        throw new RuntimeDivergence('ExpireSessions is not replayed: no runtime component ' +
          'sends expire-sessions');
    }
  }

  private groupState(gid: number) {
    const view = this.cluster.server(serversOf(gid)[0]!).view();
    if (view?.kind !== 'group') throw new RuntimeDivergence(`g${gid} is down`);
    return modelGroup(view.state);
  }

  private fire(name: string, timer: string): void {
    if (!this.cluster.timers(name).fire(timer)) {
      throw new RuntimeDivergence(`${name} has no ${timer} timer pending`);
    }
  }

  /** A single-server Raft group elects its server at its first election timeout. */
  private async elect(name: string): Promise<void> {
    this.fire(name, 'raft-election');
    await this.cluster.settle();
    const role = this.cluster.server(name).view()?.raft.role;
    if (role !== 'leader') throw new RuntimeDivergence(`${name} did not become leader`);
  }

  /** Delivers a request and, unless `lost`, its reply; returns the reply. */
  private async roundTrip(request: HeldFrame, lost: boolean): Promise<HeldFrame | undefined> {
    this.cluster.network.deliver(request);
    await this.cluster.settle();
    const reply = this.cluster.replyTo(request);
    if (reply === undefined) return undefined;
    if (lost) {
      this.cluster.network.drop(reply);
      // The sender waits in vain: its wait times out (else the driver, which never resends
      // a request in flight, could not send it again, as the model's driver does).
      const sender = request.from;
      if (request.frame.kind === 'request' && this.cluster.names.includes(sender) &&
        this.cluster.isRunning(sender)) {
        this.cluster.timers(sender).fire(`request-${request.frame.id}`);
      }
    } else {
      this.cluster.network.deliver(reply);
    }
    await this.cluster.settle();
    return reply;
  }

  /** A controller command from `from` to the leader, committed, and its answer. */
  private askController(from: string, command: ControllerCommand): Promise<ReplyBody> {
    return this.group.ask(from, command);
  }

  private async administer(operation: ControllerOperation): Promise<string | null> {
    const command = { ...operation, client: adminName, seq: this.adminSeq++ };
    const body = await this.askController(adminName, command);
    if (body?.type !== 'controller-result') {
      throw new RuntimeDivergence(`the controller answered ${JSON.stringify(body)}`);
    }
    return body.result.type === 'refused' ? `refused: ${body.result.error}` : null;
  }

  /** Setup only: every frame goes where it is sent, every entry commits, until all is still. */
  private async deliverEverything(): Promise<void> {
    for (let count = 0; count < setupFramesMax; count++) {
      await this.group.commit();
      const [first] = this.cluster.network.frames();
      if (first === undefined) return;
      this.cluster.network.deliver(first);
      await this.cluster.settle();
    }
    throw new RuntimeDivergence(`the setup still passes frames after ${setupFramesMax}`);
  }

  /**
   * Group `gid` answers the driver's facts query for `shard`. Once the answers complete the
   * shard's facts, what recovery itself sends (an unfreeze, with that bug) is delivered as the
   * model delivers it, in the same step. The commands its beliefs call for next stay held.
   */
  private async query(shard: number, gid: number, duplicate: boolean): Promise<string | null> {
    const note = await this.driverStep(['query-shard'], shard, gid, { lost: false, duplicate });
    const unfreeze = this.findDriverRequest(['unfreeze'], shard, null);
    if (unfreeze === undefined) return note;
    await this.roundTrip(unfreeze, false);
    return 'the recovering driver unfroze the source';
  }

  /**
   * The driver's request of one of `types` for `shard` (to group `gid`, when given), not a
   * kept copy.
   */
  private findDriverRequest(types: readonly string[], shard: number, gid: number | null) {
    const kept = new Set(this.kept.map((copy) => copy.frame));
    return this.cluster.network.find((held) => {
      if (kept.has(held) || (gid !== null && held.to !== serversOf(gid)[0])) return false;
      const command = held.from === this.group.leader ? groupRequest(held) : null;
      if (command === null || !types.includes(command.type)) return false;
      if (command.type === 'query-shard') return command.shard === shard;
      return 'identity' in command && command.identity.shard === shard;
    });
  }

  private async driverStep(
    types: readonly string[],
    shard: number,
    gid: number | null,
    flags: { lost: boolean; duplicate: boolean },
  ): Promise<string | null> {
    let request = this.findDriverRequest(types, shard, gid);
    let note: string | null = null;
    if (request === undefined) {
      // A lost reply: the driver sends again on its retry timer.
      this.fire(this.group.leader, 'driver-tick');
      await this.cluster.settle();
      request = this.findDriverRequest(types, shard, gid);
      const type = request === undefined ? null : groupRequest(request)?.type;
      note = `the driver resent its ${String(type)} on its retry timer`;
    }
    if (request === undefined) {
      throw new RuntimeDivergence(`the driver sent no ${types.join(' or ')} for shard ${shard}`);
    }
    if (flags.duplicate) this.keep(request);
    await this.roundTrip(request, flags.lost);
    return note;
  }

  /**
   * The driver's plan commits: one it proposed on its own (after a publish) or, else, the
   * one its retry timer proposes. Once it applies the driver asks src and dst for their facts
   * (it trusts no belief it did not rebuild); the trace's Query steps deliver them.
   */
  private async planNext(after: MigrationState): Promise<string | null> {
    const planned = () => this.group.state().next?.num === after.controller.next?.num;
    await this.group.commit(planned);
    if (!planned()) {
      this.fire(this.group.leader, 'driver-tick');
      await this.cluster.settle();
      await this.group.commit(planned);
      return 'the driver proposed the plan on its retry timer';
    }
    return null;
  }

  private keep(request: HeldFrame): void {
    const command = groupRequest(request)!;
    const to = Number(/^g(\d+)-/.exec(request.to)?.[1]);
    // Kept out of the network, which drops a crashed process's frames: the model's copy is
    // in flight until a Deliver, whatever crashes meanwhile.
    this.kept.push({ to, command, frame: request.copy() });
  }

  /** The publish the driver proposed once every move was done commits (else a tick's). */
  private async publish(after: MigrationState): Promise<string | null> {
    const published = () => this.group.state().current === after.controller.current;
    await this.group.commit(published);
    if (published()) return null;
    this.fire(this.group.leader, 'driver-tick');
    await this.cluster.settle();
    await this.group.commit(published);
    return 'the driver proposed the publish on its retry timer';
  }

  private crashDriver(): Promise<string> {
    return this.group.crashLeader();
  }

  private async clientRequest(
    client: number,
    lost: boolean,
    duplicate: boolean,
  ): Promise<string | null> {
    const send = this.book!.outstanding(client);
    if (send === null) throw new RuntimeDivergence(`client ${client} has no attempt to send`);
    const held = this.cluster.sendRequest(clientName(client), serversOf(send.gid)[0]!,
      { type: 'kv', request: send.request });
    if (duplicate) this.keep(held);
    return this.clientDelivery(held, send.gid, lost ? 'timeout' : 'reply');
  }

  /**
   * A client's request reaches group `gid`; the history notes the answer, and the client
   * takes the reply, or its attempt times out (`heard` 'timeout'), or never learns of this
   * copy ('nothing': a late copy whose reply was lost).
   */
  private async clientDelivery(
    held: HeldFrame,
    gid: number,
    heard: 'reply' | 'timeout' | 'nothing',
  ): Promise<null> {
    const command = groupRequest(held);
    if (command?.type !== 'client') throw new RuntimeDivergence('not a client request');
    const shard = key2shard(command.request.key, this.bounds.shards);
    const record = this.groupState(gid).shards[shard]!;
    const reply = await this.roundTrip(held, heard !== 'reply');
    const result = replyResult(reply);
    if (result === null) throw new RuntimeDivergence(`g${gid} gave no key/value result`);
    this.book!.answered(record, command.request, result);
    if (heard === 'nothing') return null;
    const latest = this.group.state().configs.at(-1)!;
    this.book!.received(command.request, gid, heard === 'reply' ? result : null, latest);
    return null;
  }

  private async clientQuery(client: number): Promise<null> {
    const seq = this.querySeqs.get(client) ?? 0;
    this.querySeqs.set(client, seq + 1);
    const command = { type: 'query' as const, num: -1, client: clientName(client), seq };
    const body = await this.askController(clientName(client), command);
    if (body.type !== 'controller-result' || body.result.type !== 'config') {
      throw new RuntimeDivergence(`the controller answered ${JSON.stringify(body)}`);
    }
    if (!this.book!.learned(client, body.result.config)) {
      throw new RuntimeDivergence(`client ${client} learned no newer configuration`);
    }
    return null;
  }

  /** The spec's kept copy number `index` (in its order), delivered late. */
  private async deliverCopy(
    before: MigrationState,
    index: number,
    lost: boolean,
  ): Promise<null> {
    const wanted = before.network[index];
    const same = (copy: KeptCopy) => wanted !== undefined && copy.to === wanted.to &&
      sameCommand(copy.command, wanted.command);
    const copy = this.kept.find(same);
    if (copy === undefined) throw new RuntimeDivergence(`no kept copy for network[${index}]`);
    this.kept = this.kept.filter((candidate) => candidate !== copy);
    this.cluster.network.inject(copy.frame);
    if (copy.command.type === 'client') {
      return this.clientDelivery(copy.frame, copy.to, lost ? 'nothing' : 'reply');
    }
    // A driver command's copy (the model has only its reply-lost form): the reply goes to the
    // sender, whose host no longer waits for it, answered or timed out, or died with it.
    this.cluster.network.deliver(copy.frame);
    await this.cluster.settle();
    const reply = this.cluster.replyTo(copy.frame);
    if (reply !== undefined) this.cluster.network.deliver(reply);
    await this.cluster.settle();
    return null;
  }
}

/** Two commands alike in what names them: type, identity or (client, seq, request). */
function sameCommand(a: GroupCommand, b: GroupCommand): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'client' && b.type === 'client') {
    return JSON.stringify(a.request) === JSON.stringify(b.request);
  }
  if (a.type === 'query-shard' && b.type === 'query-shard') return a.shard === b.shard;
  const identity = (command: GroupCommand) => 'identity' in command ? command.identity : null;
  return JSON.stringify(identity(a)) === JSON.stringify(identity(b));
}

export function createMigrationAdapter(
  params: Params,
  bug: string | null,
  model: AnyModel,
  faults: Partial<ShellFaults> = {},
): RuntimeAdapter<MigrationState, MigrationAction> {
  return new MigrationAdapter(params, bug, model, faults);
}
