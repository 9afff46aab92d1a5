/**
 * The client of the sharded store: the shell of spec/client's `stepClient` (sessions, seqs,
 * the configuration cache, routing, retries and unknown outcomes are decided there, by the
 * step the `migration` model checks). This shell performs the step's effects over sockets
 * and timers and feeds back what happened: a reply, an attempt's timeout, a configuration,
 * the deadline. It also carries the controller calls (register, query, join / leave / move)
 * and status questions, through GroupCaller.
 *
 * One operation at a time (a session has one request outstanding): calls queue up in order.
 */
import type { Config, ControllerOperation } from '../../spec/controller/index.js';
import type { ControllerCommand, ControllerCommandResult } from
  '../../spec/controller/state-machine.js';
import {
  attemptTimeoutMs, defaultAttemptTimeouts, requestBytes, type AttemptTimeouts,
} from '../../spec/client/attempt-timeout.js';
import { initialClient, stepClient } from '../../spec/client/client-step.js';
import type {
  ClientEffect, ClientInput, ClientState, ClientStep,
} from '../../spec/client/types.js';
import type { ClientOperation } from '../../spec/group/types.js';
import type { Clock, Timers } from '../io/clock.js';
import type { Random } from '../io/random.js';
import type { Transport } from '../io/transport.js';
import type { ClusterLayout, Outcome, PublishedConfig, ServerStatus } from '../node/api.js';
import { firstRequestId, RequestChannel } from '../node/request-channel.js';
import { oversize } from '../node/request-limits.js';
import { defaultTuning } from '../node/tuning.js';
import { decodeFrame } from '../node/wire.js';
import { GroupCaller, type Attempts } from './group-caller.js';
import { OpenAttempts, type AttemptReply } from './open-attempts.js';
import { ValueSizes } from './value-sizes.js';

export interface ClerkOptions {
  /** The clerk's own endpoint; its name (e.g. `client-3`) is what servers see. */
  readonly transport: Transport;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly random: Random;
  readonly layout: ClusterLayout;
  /**
   * A key/value attempt's first wait for a reply, before size and back-off lengthen it
   * (spec/client/attempt-timeout.ts; default 250); a controller call's fixed wait.
   */
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

/** The clerk's retry rule (spec/client): two rounds of silence, then the configuration. */
const clerkSettings = { silentRoundsBeforeQuery: 2 } as const;
/** An operation's steps are bounded by its deadline; this bounds a step loop that is not. */
const stepsPerOperationMax = 1_000_000;

export class Clerk {
  private readonly channel: RequestChannel;
  private readonly caller: GroupCaller;
  /** The client actor's state: every protocol decision is stepClient's. */
  private client: ClientState = initialClient(clerkSettings, null, 1);
  private controllerSeq = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly retryPauseMs: number;
  private readonly attemptTimeouts: AttemptTimeouts;
  private readonly valueSizes = new ValueSizes();
  /** Group callers for the operator's group commands, by their servers. */
  private readonly groupCallers = new Map<string, GroupCaller>();

  constructor(private readonly options: ClerkOptions) {
    this.retryPauseMs = options.retryPauseMs ?? 25;
    this.channel = new RequestChannel(options.transport, options.timers, 'clerk-request-',
      firstRequestId(options.clock.now()));
    const baseMs = options.attemptTimeoutMs ?? defaultAttemptTimeouts.baseMs;
    this.attemptTimeouts = {
      ...defaultAttemptTimeouts, baseMs, maxMs: Math.max(baseMs, defaultAttemptTimeouts.maxMs),
    };
    this.caller = new GroupCaller(this.channel, options.clock, options.timers, options.random, {
      attemptTimeouts: this.attemptTimeouts, retryPauseMs: this.retryPauseMs,
    });
    options.transport.onFrame((_from, bytes) => {
      const frame = decodeFrame(bytes);
      // A server that sends what is no frame is not trusted on that connection: it closes.
      if (frame === null) return 'malformed';
      if (frame.kind === 'reply') this.channel.handleReply(frame.id, frame.body);
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

  /**
   * The operator's session expiry: the group of `servers` expires every session below
   * `below` through its log (its expire-sessions command; servers take it from the admin).
   */
  expireSessions(servers: readonly string[], below: number, deadline: number) {
    return this.serially(async (): Promise<Outcome<number>> => {
      const attempts: Attempts = { sent: false };
      const body = { type: 'group', command: { type: 'expire-sessions', below } } as const;
      const reply = await this.groupCaller(servers).ask(servers, body, deadline, attempts);
      if (reply === null) return timedOut(attempts, 'expire-sessions');
      if (reply.type === 'refused') return refused(reply.error);
      if (reply.type !== 'group-result' || reply.result.type !== 'expired') {
        return refused('expire-sessions: unexpected reply');
      }
      return ok(reply.result.records);
    });
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

  /** The caller that remembers the leader of the group of `servers`. */
  private groupCaller(servers: readonly string[]): GroupCaller {
    const name = servers.join(',');
    let caller = this.groupCallers.get(name);
    if (caller === undefined) {
      caller = new GroupCaller(this.channel, this.options.clock, this.options.timers,
        this.options.random,
        { attemptTimeouts: this.attemptTimeouts, retryPauseMs: this.retryPauseMs });
      this.groupCallers.set(name, caller);
    }
    return caller;
  }

  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Feeds one input to the client step. */
  private step(input: ClientInput): ClientStep {
    const step = stepClient(this.client, input);
    this.client = step.state;
    return step;
  }

  /** The session the controller calls need: registered first if there is none. */
  private async ensureSession(deadline: number): Promise<Outcome<number>> {
    if (this.client.session !== null) return ok(this.client.session);
    const outcome = await this.registerSession(deadline);
    if (outcome.status === 'ok') this.step({ type: 'registered', session: outcome.value });
    return outcome;
  }

  private async registerSession(deadline: number): Promise<Outcome<number>> {
    const outcome = await this.controllerCall({ type: 'register-client' }, deadline);
    if (outcome.status !== 'ok') return outcome;
    if (outcome.value.result.type !== 'registered') return refused('register: unexpected reply');
    return ok(outcome.value.result.client);
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

  /** The application's query: the client step keeps the configuration if it is newer. */
  private async queryNow(num: number, deadline: number): Promise<Outcome<PublishedConfig>> {
    const outcome = await this.fetchConfig(num, deadline);
    // No request is outstanding here (one operation at a time): the step only caches it.
    if (outcome.status === 'ok') this.step({ type: 'config', config: outcome.value.config });
    return outcome;
  }

  private async fetchConfig(num: number, deadline: number): Promise<Outcome<PublishedConfig>> {
    const session = await this.ensureSession(deadline);
    if (session.status !== 'ok') return session;
    const outcome = await this.controllerCall(this.sessionCommand({ type: 'query', num }),
      deadline);
    if (outcome.status !== 'ok') return outcome;
    const { result, published } = outcome.value;
    if (result.type !== 'config') return refused('query: unexpected reply');
    return ok({ config: result.config, published });
  }

  /**
   * A controller command with this clerk's session: the client string joins the transport
   * name and the session id, so two clerks that reuse a name never share a session.
   */
  private sessionCommand(operation: ControllerOperation): ControllerCommand {
    const client = `${this.name}/${String(this.client.session)}`;
    return { ...operation, client, seq: ++this.controllerSeq };
  }

  private async controllerCall(
    command: ControllerCommand,
    deadline: number,
  ): Promise<Outcome<{ result: ControllerCommandResult; published: boolean }>> {
    const attempts: Attempts = { sent: false };
    const reply = await this.caller.ask(this.options.layout.controllers,
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
    if (this.options.clock.now() >= deadline) {
      return refused(`${op}: the deadline passed before any request was sent`);
    }
    let step = this.step({ type: 'request', op, key, value });
    const attempts = new OpenAttempts(this.channel);
    try {
      for (let steps = 0; steps < stepsPerOperationMax; steps++) {
        const effect = step.effects[0];
        if (step.effects.length !== 1 || effect === undefined) {
          throw new Error(`clerk: the client step asked ${step.effects.length} effects`);
        }
        if (effect.type === 'reply') {
          const { outcome } = effect;
          if (outcome.status === 'ok') {
            this.valueSizes.answered(op, key, op === 'get' ? outcome.value : value);
          }
          return outcome;
        }
        step = this.step(await this.perform(effect, deadline, attempts));
      }
      throw new Error('clerk: an operation took too many steps');
    } finally {
      attempts.close();
    }
  }

  /** Performs one of the step's requests and returns what came of it, as the next input. */
  private async perform(
    effect: Exclude<ClientEffect, { type: 'reply' }>,
    deadline: number,
    attempts: OpenAttempts,
  ): Promise<ClientInput> {
    if ('pause' in effect && effect.pause) await this.pauseBefore(deadline);
    if (this.options.clock.now() >= deadline) return { type: 'deadline' };
    switch (effect.type) {
      case 'register': {
        const outcome = await this.registerSession(deadline);
        if (outcome.status === 'ok') return { type: 'registered', session: outcome.value };
        if (this.options.clock.now() >= deadline) return { type: 'deadline' };
        return { type: 'register-failed', error: outcome.error };
      }
      case 'query': {
        const outcome = await this.fetchConfig(-1, deadline);
        if (this.options.clock.now() >= deadline) return { type: 'deadline' };
        return { type: 'config', config: outcome.status === 'ok' ? outcome.value.config : null };
      }
      case 'send': {
        const remaining = deadline - this.options.clock.now();
        const timeoutMs = Math.min(remaining, attemptTimeoutMs(this.attemptTimeouts,
          requestBytes(effect.request, this.valueSizes.of(effect.request.key)), effect.retry,
          this.options.random.nextFloat()));
        return attemptAnswer(await attempts.attempt(effect, timeoutMs));
      }
    }
  }

  private async pauseBefore(deadline: number): Promise<void> {
    const left = deadline - this.options.clock.now();
    if (left > 0) await this.caller.pause(Math.min(this.retryPauseMs, left));
  }
}

/**
 * A server's answer to an attempt of the operation (null: none within the attempt timeout)
 * as an input; the step decides whether it answers the attempt in flight.
 */
function attemptAnswer(answered: AttemptReply | null): ClientInput {
  if (answered === null) return { type: 'timeout' };
  const { effect: { request, server }, reply } = answered;
  const answer = { type: 'reply', request, server } as const;
  switch (reply.type) {
    case 'group-result':
      return { ...answer, reply: { type: 'result', result: reply.result } };
    case 'wrong-leader':
      return { ...answer, reply: { type: 'wrong-leader', leader: reply.leader } };
    case 'refused':
      return { ...answer, reply: { type: 'refused', error: reply.error } };
    default:
      return { ...answer, reply: { type: 'refused', error: `unexpected reply ${reply.type}` } };
  }
}

function withoutValue(outcome: Outcome<string>): Outcome<void> {
  return outcome.status === 'ok' ? ok(undefined) : outcome;
}
