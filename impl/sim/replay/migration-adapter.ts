/**
 * The `migration` model in the runtime: a controller server `ctl-0` (running the migration
 * driver as the shell does, at its leader) and one server per replica group (`g1-0`, ...: the
 * model abstracts each group's Raft away, and serversOf names one server per group), each a
 * real node shell. The scripted clients and the administrator are the replay's own senders.
 * An action becomes the runtime inputs that stand for it:
 * - Join / Leave / Move: the administrator's controller request, delivered and applied.
 * - PlanNext: the driver's retry timer fires, so it proposes the plan; once the plan applies,
 *   the runtime's driver asks src and dst for their facts (it never trusts beliefs it did not
 *   rebuild), and the replay delivers those queries and their answers.
 * - Freeze / Install / Delete / EarlyDelete(s): the held request the driver sent for shard s
 *   is delivered (a copy kept when `duplicate`); its reply reaches the driver unless `lost`.
 * - Publish: the driver proposes it itself once every move is done (usually in the step of
 *   the last reply: runtime-replay.ts then sees the runtime one step ahead); else a tick.
 * - CrashDriver: the controller's process crashes and restarts from its disk, is elected, and
 *   its new driver recovers; RecoverShard(s) delivers that driver's facts queries for s.
 * - ClientRequest / ClientQuery / ReuseSeq: a client's request frame, its reply to the client
 *   unless lost; Deliver(i) delivers the kept copy the spec's network holds at i.
 * ExpireSessions is not replayed: no runtime component sends expire-sessions.
 */
import type { AnyModel, Params } from '../../../checker/model.js';
import { key2shard } from '../../../spec/group/digest.js';
import type { GroupCommand, GroupResult } from '../../../spec/group/types.js';
import type { MigrationAction } from '../../../spec/migration/model-actions.js';
import {
  modelBugs, serversOf, type MigrationBounds, type MigrationState,
} from '../../../spec/migration/model-state.js';
import type { MigrationBugName } from '../../../spec/migration/bugs.js';
import type { ControllerOperation } from '../../../spec/controller/state-machine.js';
import type { ClusterLayout } from '../../node/api.js';
import type { RequestBody } from '../../node/wire.js';
import { RuntimeDivergence, type RuntimeAdapter } from './adapter.js';
import type { HeldFrame } from './held-network.js';
import {
  ClientBook, migrationBounds, modelController, modelDriver, modelGroup,
} from './migration-observation.js';
import { ReplayCluster } from './replay-cluster.js';

const controllerName = 'ctl-0';
const adminName = 'admin';
const clientName = (client: number) => `client-${client}`;

/** Frames a setup may pass around before it is a runaway (STYLE 7: bounded). */
const setupFramesMax = 1_000;

/** The invariants that read only what the runtime holds (OneImagePerIdentity reads the
 * model's network of kept copies, which is the replay's bookkeeping, not the runtime's). */
const evaluated = [
  'AtMostOneServer', 'OnlyServerAnswers', 'NoLostWrite', 'ReadsCurrent', 'ExactlyOnce',
  'UnaffectedServed', 'GarbageBound',
];

const commandOfStep = {
  Freeze: 'freeze', Install: 'install', Delete: 'delete', EarlyDelete: 'delete',
} as const;

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
  private readonly bounds: MigrationBounds;
  private book: ClientBook | null = null;
  private kept: KeptCopy[] = [];
  private adminSeq = 0;
  /** Each client's next controller session seq: a repeated seq would get the cached answer. */
  private readonly querySeqs = new Map<number, number>();

  constructor(params: Params, bug: string | null, private readonly model: AnyModel) {
    this.bounds = migrationBounds(params);
    const groups: Record<number, string[]> = {};
    for (let gid = 1; gid <= this.bounds.groups; gid++) groups[gid] = serversOf(gid);
    const layout: ClusterLayout = {
      shardCount: this.bounds.shards, controllers: [controllerName], groups,
    };
    const bugs = modelBugs((bug ?? undefined) as MigrationBugName | undefined);
    this.cluster = new ReplayCluster({ layout, tuning: {}, bugs, adminName });
  }

  /** The model's actions name no message contents: a schedule's actions are the same. */
  counterpart(): undefined {
    return undefined;
  }

  takesOnItsOwn(action: MigrationAction): boolean {
    return action.type === 'Publish' || action.type === 'PlanNext';
  }

  async setUp(): Promise<void> {
    const initial = this.model.initialStates()[0] as MigrationState;
    this.book = new ClientBook(this.bounds, initial);
    for (const name of this.cluster.names) {
      await this.cluster.start(name);
      await this.elect(name);
    }
    // The model's configuration 1: the clients' sessions, join(g1), migrated and published.
    for (let client = 0; client < this.bounds.clients; client++) {
      await this.exchange(clientName(client), controllerName,
        { type: 'controller', command: { type: 'register-client' } });
    }
    await this.administer({ type: 'join', groups: { 1: serversOf(1) } });
    this.fire(controllerName, 'driver-tick');
    await this.cluster.settle();
    await this.deliverEverything();
  }

  tearDown(): void {
    for (const name of this.cluster.names) this.cluster.crash(name);
  }

  observe(expected: MigrationState): MigrationState {
    const controller = this.cluster.server(controllerName);
    const view = controller.view();
    if (view?.kind !== 'controller') throw new RuntimeDivergence(`${controllerName} is down`);
    const groups = expected.groups.map((_, index) => this.groupState(index + 1));
    return {
      ...expected,
      controller: modelController(view.state, expected.controller),
      driver: modelDriver(controller.driver!.beliefs),
      groups,
      clients: this.book!.clients,
      history: this.book!.history,
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
        this.fire(controllerName, 'driver-tick');
        await this.cluster.settle();
        await this.answerFactsQueries(null);
        return 'the driver asked the groups for their facts of the moved shards';
      case 'Freeze':
      case 'Install':
      case 'Delete':
      case 'EarlyDelete':
        return this.driverStep(commandOfStep[action.type], action.shard, action);
      case 'Publish':
        return this.publish(after);
      case 'CrashDriver':
        return this.crashDriver();
      case 'RecoverShard':
        return this.recoverShard(action.shard);
      case 'ClientRequest':
        return this.clientRequest(action.client, action.lost, action.duplicate);
      case 'ClientQuery':
        return this.clientQuery(action.client);
      case 'ReuseSeq':
        this.book!.reuse(action.client);
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
    if (lost) this.cluster.network.drop(reply);
    else this.cluster.network.deliver(reply);
    await this.cluster.settle();
    return reply;
  }

  private async exchange(from: string, to: string, body: RequestBody): Promise<HeldFrame> {
    const request = this.cluster.sendRequest(from, to, body);
    const reply = await this.roundTrip(request, false);
    if (reply === undefined) throw new RuntimeDivergence(`${to} did not answer ${from}`);
    return reply;
  }

  private async administer(operation: ControllerOperation): Promise<string | null> {
    const command = { ...operation, client: adminName, seq: this.adminSeq++ };
    const reply = await this.exchange(adminName, controllerName,
      { type: 'controller', command });
    const body = reply.frame.kind === 'reply' ? reply.frame.body : null;
    if (body?.type !== 'controller-result') {
      throw new RuntimeDivergence(`the controller answered ${JSON.stringify(body)}`);
    }
    return body.result.type === 'refused' ? `refused: ${body.result.error}` : null;
  }

  /** Setup only: every frame goes where it is sent until nothing is in flight. */
  private async deliverEverything(): Promise<void> {
    for (let count = 0; count < setupFramesMax; count++) {
      const [first] = this.cluster.network.frames();
      if (first === undefined) return;
      this.cluster.network.deliver(first);
      await this.cluster.settle();
    }
    throw new RuntimeDivergence(`the setup still passes frames after ${setupFramesMax}`);
  }

  /** The driver's facts queries (for `shard`, or every shard) answered, and the answers seen. */
  private async answerFactsQueries(shard: number | null): Promise<void> {
    const isQuery = (held: HeldFrame) => {
      const command = held.from === controllerName ? groupRequest(held) : null;
      return command?.type === 'query-shard' && (shard === null || command.shard === shard);
    };
    for (let query = this.cluster.network.find(isQuery); query !== undefined;
      query = this.cluster.network.find(isQuery)) {
      await this.roundTrip(query, false);
    }
  }

  /**
   * The new driver's facts for `shard` come back; what recovery itself sends (an unfreeze,
   * with that bug) is delivered as the model's RecoverShard delivers it. The commands its
   * beliefs call for next stay held for the trace's next driver step.
   */
  private async recoverShard(shard: number): Promise<string | null> {
    await this.answerFactsQueries(shard);
    const unfreeze = this.findDriverRequest('unfreeze', shard);
    if (unfreeze === undefined) return null;
    await this.roundTrip(unfreeze, false);
    return 'the recovering driver unfroze the source';
  }

  private findDriverRequest(type: string, shard: number): HeldFrame | undefined {
    const kept = new Set(this.kept.map((copy) => copy.frame));
    return this.cluster.network.find((held) => {
      if (kept.has(held)) return false;
      const command = held.from === controllerName ? groupRequest(held) : null;
      return command !== null && command.type === type && 'identity' in command &&
        command.identity.shard === shard;
    });
  }

  private async driverStep(
    type: string,
    shard: number,
    flags: { lost: boolean; duplicate: boolean },
  ): Promise<string | null> {
    let request = this.findDriverRequest(type, shard);
    let note: string | null = null;
    if (request === undefined) {
      // The driver recovers (facts first) or waits for its retry timer to resend.
      await this.answerFactsQueries(shard);
      request = this.findDriverRequest(type, shard);
      if (request === undefined) {
        this.fire(controllerName, 'driver-tick');
        await this.cluster.settle();
        request = this.findDriverRequest(type, shard);
        note = `the driver resent its ${type} on its retry timer`;
      }
    }
    if (request === undefined) {
      throw new RuntimeDivergence(`the driver sent no ${type} for shard ${shard}`);
    }
    if (flags.duplicate) this.keep(request);
    const planned = this.intentNumber();
    await this.roundTrip(request, flags.lost);
    if (this.intentNumber() === planned || this.intentNumber() === null) return note;
    // The reply completed the intent: the driver published, planned the next configuration
    // and asks for its facts, all on its own (the trace's Publish and PlanNext come next).
    await this.answerFactsQueries(null);
    return 'the driver published and planned the next configuration on its own';
  }

  private intentNumber(): number | null {
    const view = this.cluster.server(controllerName).view();
    return view?.kind === 'controller' ? (view.state.next?.num ?? null) : null;
  }

  private keep(request: HeldFrame): void {
    const command = groupRequest(request)!;
    const to = Number(/^g(\d+)-/.exec(request.to)?.[1]);
    this.kept.push({ to, command, frame: this.cluster.network.duplicate(request) });
  }

  private async publish(after: MigrationState): Promise<string | null> {
    const view = this.cluster.server(controllerName).view();
    if (view?.kind === 'controller' && view.state.current === after.controller.current) {
      return 'the driver had published on its own';
    }
    this.fire(controllerName, 'driver-tick');
    await this.cluster.settle();
    return null;
  }

  private async crashDriver(): Promise<string> {
    this.cluster.crash(controllerName);
    // Its connections are gone; its request ids start again at 1 in the new process.
    this.cluster.network.dropAll(controllerName);
    await this.cluster.start(controllerName);
    await this.elect(controllerName);
    return 'the controller server crashed, restarted from its disk and was elected again';
  }

  private async clientRequest(
    client: number,
    lost: boolean,
    duplicate: boolean,
  ): Promise<string | null> {
    const book = this.book!;
    const request = book.outstanding(client);
    const configNum = book.clients[client]!.configNum;
    const controller = this.cluster.server(controllerName).view();
    const config = controller?.kind === 'controller' ? controller.state.configs[configNum] : null;
    const shard = key2shard(request.key, this.bounds.shards);
    const owner = config?.shards[shard] ?? 0;
    if (owner === 0) throw new RuntimeDivergence(`client ${client} knows no owner of ${shard}`);
    const held = this.cluster.sendRequest(clientName(client), serversOf(owner)[0]!,
      { type: 'kv', request });
    if (duplicate) this.keep(held);
    return this.clientDelivery(held, owner, lost);
  }

  /** A client's request reaches group `gid`; the history notes the answer, the client too. */
  private async clientDelivery(held: HeldFrame, gid: number, lost: boolean): Promise<null> {
    const command = groupRequest(held);
    if (command?.type !== 'client') throw new RuntimeDivergence('not a client request');
    const shard = key2shard(command.request.key, this.bounds.shards);
    const record = this.groupState(gid).shards[shard]!;
    const reply = await this.roundTrip(held, lost);
    const result = replyResult(reply);
    if (result === null) throw new RuntimeDivergence(`g${gid} gave no key/value result`);
    this.book!.answered(record, command.request, result);
    if (!lost) this.book!.received(command.request, result);
    return null;
  }

  private async clientQuery(client: number): Promise<null> {
    const seq = this.querySeqs.get(client) ?? 0;
    this.querySeqs.set(client, seq + 1);
    const command = { type: 'query' as const, num: -1, client: clientName(client), seq };
    const reply = await this.exchange(clientName(client), controllerName,
      { type: 'controller', command });
    const body = reply.frame.kind === 'reply' ? reply.frame.body : null;
    if (body?.type !== 'controller-result' || body.result.type !== 'config') {
      throw new RuntimeDivergence(`the controller answered ${JSON.stringify(body)}`);
    }
    this.book!.learned(client, body.result.config.num);
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
    if (copy.command.type === 'client') return this.clientDelivery(copy.frame, copy.to, lost);
    await this.roundTrip(copy.frame, lost);
    return null;
  }
}

/** Two commands alike in what names them: type, identity or (client, seq, request). */
function sameCommand(a: GroupCommand, b: GroupCommand): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'client' && b.type === 'client') {
    return JSON.stringify(a.request) === JSON.stringify(b.request);
  }
  const identity = (command: GroupCommand) => 'identity' in command ? command.identity : null;
  return JSON.stringify(identity(a)) === JSON.stringify(identity(b));
}

export function createMigrationAdapter(
  params: Params,
  bug: string | null,
  model: AnyModel,
): RuntimeAdapter<MigrationState, MigrationAction> {
  return new MigrationAdapter(params, bug, model);
}
