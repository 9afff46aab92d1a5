/**
 * Runs the migration driver (spec/migration/driver-step.ts) at the controller group's leader:
 * feeds it `start` on the Raft step's `leaderReady` (its own term's no-op applied: `next`
 * is the latest), `tick` every driverRetryMs, `applied` after a plan or a publish applies, and
 * every group's answer as `reply`, as it arrives (facts answers too: the driver pairs them).
 * It sends the driver's commands to the target group's believed leader and proposes the
 * driver's plans and publishes to its own Raft. Every choice is the driver's.
 */
import type { ControllerCommand, ControllerCommandResult, ControllerState } from
  '../../spec/controller/state-machine.js';
import type { GroupCommand } from '../../spec/group/types.js';
import type { MigrationBugs } from '../../spec/migration/bugs.js';
import {
  stepDriver, type DriverInput, type DriverStep,
} from '../../spec/migration/driver-step.js';
import { idleDriver, type DriverState, type Send } from '../../spec/migration/types.js';
import type { ClusterLayout } from './api.js';
import type { LoopContext } from './loop-context.js';
import type { RequestChannel } from './request-channel.js';

const tickTimer = 'driver-tick';

/**
 * A request the tick resends is not sent again while one copy is still unanswered. Requests
 * to one group queue at its leader, and an image part (staged, or fetched: up to an append's
 * budget either way) takes a loaded leader about as long as a small request's whole wait, so
 * a request waits once more for every part in flight to its group, itself included.
 */
const requestTimeoutFactor = 4;

const carriesPart = (command: GroupCommand) =>
  command.type === 'stage-part' || command.type === 'fetch-part';

export interface DriverHostDependencies {
  readonly context: LoopContext;
  readonly layout: ClusterLayout;
  readonly channel: RequestChannel;
  readonly bugs: MigrationBugs;
  controllerState(): ControllerState;
  propose(command: ControllerCommand): void;
  /** Tracing: after every driver step (`stop`: beliefs dropped, no step). */
  onStep?(input: DriverInput | { readonly type: 'stop' }, step: DriverStep | null,
    driver: DriverState): void;
}

export class DriverHost {
  private driver: DriverState = idleDriver;
  private active = false;
  /** The requests sent and not yet answered, by requestKey: true for those with a part. */
  private readonly inFlight = new Map<string, boolean>();
  /** gid -> the server believed to lead that group. */
  private readonly leaders = new Map<number, string>();

  constructor(private readonly dependencies: DriverHostDependencies) {}

  /** The driver's beliefs now (read only: `replay --runtime` compares them with the spec's). */
  get beliefs(): DriverState {
    return this.driver;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.run({ type: 'start' });
    this.armTick();
  }

  /** Leadership lost (or the server died): the next leader's driver recovers from facts. */
  stop(): void {
    const { context, onStep } = this.dependencies;
    if (this.active && !context.isDead()) onStep?.({ type: 'stop' }, null, idleDriver);
    this.active = false;
    this.driver = idleDriver;
    this.inFlight.clear();
    this.dependencies.context.timers.cancelTimer(tickTimer);
  }

  applied(result: ControllerCommandResult): void {
    if (this.active) this.run({ type: 'applied', result });
  }

  private armTick(): void {
    const { context } = this.dependencies;
    context.timers.setTimer(tickTimer, context.tuning.driverRetryMs, () => {
      if (!this.active || context.isDead()) return;
      this.run({ type: 'tick' });
      this.armTick();
    });
  }

  private run(input: DriverInput): void {
    const { bugs, context } = this.dependencies;
    const limits = {
      partBytesMax: context.tuning.imagePartBytes,
      partsInFlightMax: context.tuning.imagePartsInFlight,
    };
    const step = stepDriver(this.dependencies.controllerState(), this.driver, input, bugs, limits);
    this.driver = step.driver;
    this.dependencies.onStep?.(input, step, step.driver);
    step.sends.forEach((send) => void this.send(send));
    step.proposals.forEach((command) => this.dependencies.propose(command));
  }

  private servers(gid: number): readonly string[] {
    const configs = this.dependencies.controllerState().configs;
    return configs[configs.length - 1]?.groups[gid] ?? this.dependencies.layout.groups[gid] ?? [];
  }

  private target(gid: number): string | undefined {
    return this.leaders.get(gid) ?? this.servers(gid)[0];
  }

  /** The next server of the group after `server`: a wrong leader or a silent one. */
  private rotate(gid: number, server: string, hint: string | null): void {
    const servers = this.servers(gid);
    const next = hint !== null && servers.includes(hint)
      ? hint
      : servers[(servers.indexOf(server) + 1) % servers.length];
    if (next !== undefined) this.leaders.set(gid, next);
  }

  private async send({ to: gid, command }: Send): Promise<void> {
    const { context, channel } = this.dependencies;
    const server = this.target(gid);
    const key = requestKey(gid, command);
    if (server === undefined || this.inFlight.has(key)) return;
    this.inFlight.set(key, carriesPart(command));
    let parts = 0;
    for (const [other, part] of this.inFlight) if (part && other.startsWith(`${gid}|`)) parts++;
    const timeoutMs = requestTimeoutFactor * context.tuning.driverRetryMs * (1 + parts);
    const reply = await channel.request(server, { type: 'group', command }, timeoutMs);
    this.inFlight.delete(key);
    if (!this.active || context.isDead()) return;
    if (reply === null) return this.rotate(gid, server, null);
    if (reply.type === 'wrong-leader') return this.rotate(gid, server, reply.leader);
    if (reply.type !== 'group-result') {
      context.log(`driver: ${gid} answered ${JSON.stringify(reply)} to ${command.type}`);
      return;
    }
    this.leaders.set(gid, server);
    this.run({ type: 'reply', from: gid, command, result: reply.result });
  }
}

/** What names a request in flight; each part of an image is a request of its own. */
function requestKey(gid: number, command: GroupCommand): string {
  const identity = 'identity' in command ? command.identity : null;
  const shard = command.type === 'query-shard' ? command.shard : identity?.shard;
  const part = 'index' in command ? `|${command.index}` : '';
  return `${gid}|${command.type}|${String(shard)}|${String(identity?.epoch)}${part}`;
}
