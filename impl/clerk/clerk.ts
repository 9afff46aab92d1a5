/**
 * The client of the sharded store (MIT 6.5840's clerk, with the sessions of Raft
 * dissertation §6.3): it registers a session with the controller, numbers its requests
 * (clientId, seq) and keeps the number across retries, so a retried request takes effect once.
 * It routes a key to the group that owns its shard in its cached configuration and refetches
 * the configuration on ErrWrongGroup; it retries through leader changes and lost messages
 * until a deadline. An operation that may have reached a server but whose result it never
 * learned is `unknown`, never `refused`: `refused` is kept for definitive refusals.
 *
 * One operation at a time (a session has one request outstanding): calls queue up in order.
 */
import type { Config, ControllerOperation } from '../../spec/controller/index.js';
import type { ControllerCommand, ControllerCommandResult } from
  '../../spec/controller/state-machine.js';
import { key2shard } from '../../spec/group/digest.js';
import type { ClientOperation } from '../../spec/group/types.js';
import type { Clock, Timers } from '../io/clock.js';
import type { Random } from '../io/random.js';
import type { Transport } from '../io/transport.js';
import type { ClusterLayout, Outcome, PublishedConfig, ServerStatus } from '../node/api.js';
import { RequestChannel } from '../node/request-channel.js';
import { oversize } from '../node/request-limits.js';
import { defaultTuning } from '../node/tuning.js';
import { decodeFrame, type ReplyBody } from '../node/wire.js';
import { GroupCaller, type Attempts } from './group-caller.js';

export interface ClerkOptions {
  /** The clerk's own endpoint; its name (e.g. `client-3`) is what servers see. */
  readonly transport: Transport;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly random: Random;
  readonly layout: ClusterLayout;
  /** One attempt waits this long for a reply before trying another server (default 250). */
  readonly attemptTimeoutMs?: number;
  /** A pause after a round of servers none of which leads (default 25). */
  readonly retryPauseMs?: number;
  /** Larger keys and values are refused before anything is sent (CONTRACT's defaults). */
  readonly maxKeyBytes?: number;
  readonly maxValueBytes?: number;
}

const ok = <T>(value: T): Outcome<T> => ({ status: 'ok', value });
const refused = <T>(error: string): Outcome<T> => ({ status: 'refused', error });

/** The deadline passed: unknown when a request left, else nothing happened. */
function timedOut<T>(attempts: Attempts, what: string): Outcome<T> {
  if (attempts.sent) return { status: 'unknown', error: `${what}: no answer before the deadline` };
  return refused(`${what}: the deadline passed before any request was sent`);
}

const controllerKey = 'controller';

export class Clerk {
  private readonly channel: RequestChannel;
  private readonly caller: GroupCaller;
  private clientId: number | null = null;
  private kvSeq = 0;
  private controllerSeq = 0;
  private config: Config | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly retryPauseMs: number;

  constructor(private readonly options: ClerkOptions) {
    this.retryPauseMs = options.retryPauseMs ?? 25;
    this.channel = new RequestChannel(options.transport, options.timers, 'clerk-request-');
    this.caller = new GroupCaller(this.channel, options.clock, options.timers, options.random, {
      attemptTimeoutMs: options.attemptTimeoutMs ?? 250,
      retryPauseMs: this.retryPauseMs,
    });
    options.transport.onFrame((_from, bytes) => {
      const frame = decodeFrame(bytes);
      if (frame?.kind === 'reply') this.channel.handleReply(frame.id, frame.body);
    });
  }

  get name(): string {
    return this.options.transport.name;
  }

  /** Registers a session (done by the first operation that needs one if not called). */
  register(deadline: number): Promise<Outcome<number>> {
    return this.serially(() => this.ensureSession(deadline));
  }

  get(key: string, deadline: number): Promise<Outcome<string>> {
    return this.serially(() => this.keyValue('get', key, '', deadline));
  }

  async put(key: string, value: string, deadline: number): Promise<Outcome<void>> {
    return withoutValue(await this.serially(() => this.keyValue('put', key, value, deadline)));
  }

  async append(key: string, value: string, deadline: number): Promise<Outcome<void>> {
    return withoutValue(await this.serially(() => this.keyValue('append', key, value, deadline)));
  }

  /** Join groups (gid -> server names): the configuration it recorded. */
  join(groups: Readonly<Record<number, readonly string[]>>, deadline: number) {
    return this.configChange({ type: 'join', groups }, deadline);
  }

  leave(gids: readonly number[], deadline: number) {
    return this.configChange({ type: 'leave', gids }, deadline);
  }

  move(shard: number, gid: number, deadline: number) {
    return this.configChange({ type: 'move', shard, gid }, deadline);
  }

  /** Configuration `num` (-1: the latest) and whether it is published. */
  query(num: number, deadline: number): Promise<Outcome<PublishedConfig>> {
    return this.serially(() => this.queryNow(num, deadline));
  }

  /** Polls until configuration `num` is published. */
  async waitPublished(num: number, deadline: number): Promise<Outcome<PublishedConfig>> {
    for (;;) {
      const outcome = await this.query(num, deadline);
      if (outcome.status !== 'ok' || outcome.value.published) return outcome;
      if (outcome.value.config.num !== num) return refused(`no configuration ${num} recorded`);
      if (this.options.clock.now() >= deadline) {
        return { status: 'unknown', error: `configuration ${num} not published yet` };
      }
      await this.caller.pause(Math.min(50, deadline - this.options.clock.now()));
    }
  }

  /** A server's status, asked of that server directly. */
  async status(node: string, deadline: number): Promise<Outcome<ServerStatus>> {
    const attempts: Attempts = { sent: false };
    while (this.options.clock.now() < deadline) {
      const reply = await this.caller.send(node, { type: 'status' }, deadline, attempts);
      if (reply?.type === 'status') return ok(reply.status);
      if (reply?.type === 'refused') return refused(reply.error);
    }
    return timedOut(attempts, `status of ${node}`);
  }

  /** Stops: requests in flight resolve as unanswered. The transport is the caller's. */
  close(): void {
    this.channel.close();
  }

  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async ensureSession(deadline: number): Promise<Outcome<number>> {
    if (this.clientId !== null) return ok(this.clientId);
    const outcome = await this.controllerCall({ type: 'register-client' }, deadline);
    if (outcome.status !== 'ok') return outcome;
    if (outcome.value.result.type !== 'registered') return refused('register: unexpected reply');
    this.clientId = outcome.value.result.client;
    return ok(this.clientId);
  }

  private async configChange(
    operation: ControllerOperation,
    deadline: number,
  ): Promise<Outcome<Config>> {
    return this.serially(async () => {
      const session = await this.ensureSession(deadline);
      if (session.status !== 'ok') return session;
      const outcome = await this.controllerCall(this.sessionCommand(operation), deadline);
      if (outcome.status !== 'ok') return outcome;
      const result = outcome.value.result;
      return result.type === 'config' ? ok(result.config) : refused('unexpected reply');
    });
  }

  private async queryNow(num: number, deadline: number): Promise<Outcome<PublishedConfig>> {
    const session = await this.ensureSession(deadline);
    if (session.status !== 'ok') return session;
    const outcome = await this.controllerCall(this.sessionCommand({ type: 'query', num }),
      deadline);
    if (outcome.status !== 'ok') return outcome;
    const { result, published } = outcome.value;
    if (result.type !== 'config') return refused('query: unexpected reply');
    if (this.config === null || result.config.num > this.config.num) this.config = result.config;
    return ok({ config: result.config, published });
  }

  /**
   * A controller command with this clerk's session: the client string joins the transport
   * name and the session id, so two clerks that reuse a name never share a session.
   */
  private sessionCommand(operation: ControllerOperation): ControllerCommand {
    const client = `${this.name}/${String(this.clientId)}`;
    return { ...operation, client, seq: ++this.controllerSeq };
  }

  private async controllerCall(
    command: ControllerCommand,
    deadline: number,
  ): Promise<Outcome<{ result: ControllerCommandResult; published: boolean }>> {
    const attempts: Attempts = { sent: false };
    const reply = await this.caller.ask(controllerKey, this.options.layout.controllers,
      { type: 'controller', command }, deadline, attempts);
    if (reply === null) return timedOut(attempts, command.type);
    if (reply.type === 'refused') return refused(reply.error);
    if (reply.type !== 'controller-result') return refused(`${command.type}: unexpected reply`);
    if (reply.result.type === 'refused') return refused(reply.result.error);
    return ok({ result: reply.result, published: reply.published });
  }

  private async keyValue(
    op: ClientOperation,
    key: string,
    value: string,
    deadline: number,
  ): Promise<Outcome<string>> {
    const tooLarge = oversize(key, value, {
      maxKeyBytes: this.options.maxKeyBytes ?? defaultTuning.maxKeyBytes,
      maxValueBytes: this.options.maxValueBytes ?? defaultTuning.maxValueBytes,
    });
    if (tooLarge !== null) return refused(tooLarge);
    const session = await this.ensureSession(deadline);
    if (session.status !== 'ok') return session;
    const request = { client: session.value, seq: ++this.kvSeq, op, key, value };
    const attempts: Attempts = { sent: false };
    const shard = key2shard(key, this.options.layout.shardCount);
    while (this.options.clock.now() < deadline) {
      const config = this.config ?? (await this.refreshConfig(deadline));
      const gid = config?.shards[shard] ?? 0;
      const servers = config?.groups[gid] ?? [];
      if (config === null || gid === 0 || servers.length === 0) {
        await this.refreshAfterPause(deadline);
        continue;
      }
      // Two rounds of silence: the group may have left; the configuration is asked again.
      const reply = await this.caller.ask(`group-${gid}`, servers, { type: 'kv', request },
        deadline, attempts, 2);
      const outcome = keyValueOutcome(reply);
      if (outcome !== null) return outcome;
      await this.refreshAfterPause(deadline);
    }
    return timedOut(attempts, op);
  }

  private async refreshConfig(deadline: number): Promise<Config | null> {
    const outcome = await this.queryNow(-1, deadline);
    return outcome.status === 'ok' ? outcome.value.config : this.config;
  }

  private async refreshAfterPause(deadline: number): Promise<void> {
    const left = deadline - this.options.clock.now();
    if (left <= 0) return;
    await this.caller.pause(Math.min(this.retryPauseMs, left));
    await this.refreshConfig(deadline);
  }
}

/** A group's answer to a key/value request as an outcome; null: ask again elsewhere. */
function keyValueOutcome(reply: ReplyBody | null): Outcome<string> | null {
  if (reply === null) return null;
  if (reply.type === 'refused') return refused(reply.error);
  if (reply.type !== 'group-result') return null;
  const result = reply.result;
  if (result.type === 'value') return ok(result.value);
  if (result.type === 'error' && result.error === 'ErrWrongGroup') return null;
  return refused(result.type === 'error' ? result.error : `unexpected result ${result.type}`);
}

function withoutValue(outcome: Outcome<string>): Outcome<void> {
  return outcome.status === 'ok' ? ok(undefined) : outcome;
}
