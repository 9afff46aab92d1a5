/**
 * The `migration` model's driver: spec/migration's `stepDriver`, the function the controller
 * leader runs in the cluster (impl/node/driver-host.ts), fed the inputs the runtime's host
 * feeds it. The model decides nothing about the protocol; it only chooses, as the network and
 * the controller's log would, which of the driver's effects happens next:
 *
 * - Freeze(s) / Install(s) / Delete(s): one of the commands the driver's beliefs call for now
 *   (what its retry timer, `tick`, sends again) reaches its group; the group's reply reaches
 *   the driver as `reply` unless it is lost; the network may keep a copy to deliver late.
 * - Query(s, g): the driver's facts query for shard s reaches group g and its answer comes
 *   back as `reply` (losing it changes nothing: the query is read only). The driver keeps
 *   each answer and resumes the shard once its src and dst both answered.
 * - PlanNext / Publish: the plan or publish the driver proposes applies in the controller's
 *   log, and the driver learns it (`applied`): its beliefs are rebuilt when `next` changed.
 *   The driver proposes on every tick until it sees the proposal applied, so the log may
 *   hold copies: PlanNext is also a late copy of the plan it proposed at this `current`
 *   applying once `next` exists (the correct controller returns the intent unchanged; the
 *   skip-config controller plans over it).
 * - CrashDriver: the driver loses its beliefs and starts again (`start`) at once: a slow
 *   restart is the same as a driver that does nothing for a while.
 *
 * A command a step sends that its retry timer would not send again (the unfreeze of the
 * unfreeze-on-recovery bug) is delivered in the same action, its reply to the driver: it has
 * no later chance (losing it is the correct driver's behaviour, explored without the bug).
 */
import { assert } from '../../spec/assert.js';
import {
  applyControllerCommand,
  type ControllerCommand,
} from '../../spec/controller/state-machine.js';
import type { Gid } from '../../spec/controller/types.js';
import type { GroupCommand, GroupResult } from '../../spec/group/types.js';
import type { PartLimits } from '../../spec/group/image-cut.js';
import { stepDriver, type DriverInput, type DriverStep } from '../../spec/migration/driver-step.js';
import { idleDriver, type DriverState, type Send } from '../../spec/migration/types.js';
import type { InFlight, MigrationBounds, MigrationState, ModelBugs } from './model-state.js';

/** The model driver's window of image parts (and the runtime replay's: migration-adapter). */
export const modelPartsInFlight = 1;

/** A driver command reaching its group, by the command's type. */
export type DriverSendType = 'Freeze' | 'Install' | 'Delete';

export type DriverAction =
  | { readonly type: 'PlanNext' }
  | {
      readonly type: DriverSendType;
      readonly shard: number;
      readonly lost: boolean;
      readonly duplicate: boolean;
    }
  | { readonly type: 'Query'; readonly shard: number; readonly gid: Gid;
      readonly duplicate: boolean }
  | { readonly type: 'Publish' }
  | { readonly type: 'CrashDriver' };

/**
 * The commands each action sends: Install sends a whole image, fetches a part from src,
 * stages it at dst, or installs the parts (the first of the window the driver has out).
 */
export const commandsOf: Record<DriverSendType, readonly GroupCommand['type'][]> = {
  Freeze: ['precopy', 'freeze'],
  Install: ['install', 'fetch-part', 'stage-part', 'install-parts'],
  Delete: ['delete'],
};

/** What the driver's actions need of the composition: the groups and the network's copies. */
export interface DriverNetwork {
  /** Group `to` applies `command` (the history variables note what it changed). */
  deliver(state: MigrationState, to: Gid, command: GroupCommand): {
    state: MigrationState;
    result: GroupResult;
  };
  /** The state with one more copy kept for late delivery; null past max-duplicates. */
  keep(state: MigrationState, copy: InFlight): MigrationState | null;
}

/** The shard a driver command is about. */
function shardOf(command: GroupCommand): number | null {
  if (command.type === 'query-shard') return command.shard;
  return 'identity' in command ? command.identity.shard : null;
}

/** Sends alike in what names them (as the runtime host dedups its requests in flight). */
function sameSend(a: Send, b: Send): boolean {
  if (a.to !== b.to || a.command.type !== b.command.type) return false;
  if (shardOf(a.command) !== shardOf(b.command)) return false;
  const epoch = (command: GroupCommand) => 'identity' in command ? command.identity.epoch : null;
  const part = (command: GroupCommand) =>
    command.type === 'stage-part' || command.type === 'fetch-part' ? command.index : null;
  return epoch(a.command) === epoch(b.command) && part(a.command) === part(b.command);
}

/** Beliefs alike: the same steps holding the very same facts, image or receipt. */
function sameBeliefs(a: DriverState, b: DriverState): boolean {
  if (a.num !== b.num || a.progress.length !== b.progress.length) return false;
  return a.progress.every((progress, index) => {
    const other = b.progress[index]!;
    if (progress.step !== other.step) return false;
    switch (progress.step) {
      case 'recover':
        return other.step === 'recover' && progress.srcFacts === other.srcFacts &&
          progress.dstFacts === other.dstFacts;
      case 'install':
        return other.step === 'install' && progress.image === other.image;
      case 'freeze':
        return other.step === 'freeze' && progress.precopied === other.precopied;
      case 'stage':
        return other.step === 'stage' && progress.manifest === other.manifest &&
          progress.acknowledged === other.acknowledged && progress.delta === other.delta &&
          progress.parts.every((part, position) => part === other.parts[position]);
      case 'delete':
        return other.step === 'delete' && progress.receipt === other.receipt;
      default:
        return true;
    }
  });
}

export class DriverActions {
  /**
   * The last tick's inputs and step: the checker asks every driver action of a state in a
   * row, and stepDriver is pure, so one tick per state suffices.
   */
  private ticked: { state: MigrationState; step: DriverStep } | null = null;

  constructor(
    private readonly bounds: MigrationBounds,
    private readonly bugs: ModelBugs,
    private readonly network: DriverNetwork,
  ) {
    this.limits = { partBytesMax: bounds.partBytes, partsInFlightMax: modelPartsInFlight };
  }

  /**
   * How the model's driver cuts images: small parts, so that an image has two, and one part
   * out at a time. An Install action delivers the first command of the window anyway, so a
   * wider window adds no state here; the runtime's replay (verify/replay) runs with the same
   * window, so that its driver sends what the model's does.
   */
  private readonly limits: PartLimits;

  next(state: MigrationState, action: DriverAction): MigrationState | null {
    switch (action.type) {
      case 'PlanNext':
        return this.applyProposal(state, 'plan');
      case 'Publish':
        return this.applyProposal(state, 'publish');
      case 'Freeze':
      case 'Install':
      case 'Delete':
        return this.send(state, commandsOf[action.type], action.shard, null, action);
      case 'Query':
        return this.send(state, ['query-shard'], action.shard, action.gid,
          { lost: false, duplicate: action.duplicate });
      case 'CrashDriver':
        return this.crash(state);
    }
  }

  /** A reply reaches the driver (sent now or delivered late from a kept copy). */
  reply(state: MigrationState, from: Gid, command: GroupCommand, result: GroupResult) {
    return this.perform(state, this.step(state, { type: 'reply', from, command, result }));
  }

  private step(state: MigrationState, input: DriverInput): DriverStep {
    return stepDriver(state.controller, state.driver, input, this.bugs.migration, this.limits);
  }

  /** The driver's retry timer: the commands and proposals its beliefs call for now. */
  private tick(state: MigrationState): { state: MigrationState; step: DriverStep } {
    const last = this.ticked;
    const fresh = last === null || last.state.controller !== state.controller ||
      last.state.driver !== state.driver;
    const step = fresh ? this.step(state, { type: 'tick' }) : last.step;
    if (fresh) this.ticked = { state, step };
    return { state: step.driver === state.driver ? state : { ...state, driver: step.driver },
      step };
  }

  /** The controller's log applies the driver's proposal of `type`; the driver learns it. */
  private applyProposal(
    state: MigrationState,
    type: ControllerCommand['type'],
  ): MigrationState | null {
    const ticked = this.tick(state);
    const proposal = ticked.step.proposals.find((command) => command.type === type) ??
      this.lateCopy(ticked.state, type);
    if (proposal === undefined) return null;
    const applied = applyControllerCommand(ticked.state.controller, proposal,
      this.bugs.controller);
    if (applied.state === ticked.state.controller) return null;
    const recorded = { ...ticked.state, controller: applied.state };
    return this.perform(recorded, this.step(recorded, { type: 'applied', result: applied.result }));
  }

  /**
   * A copy of a proposal the driver made before, still in the log: the plan of `current + 1`
   * it proposed while `next` was null at this `current` (its ticks propose nothing else).
   * A late publish needs no action of its own: the controller refuses every one.
   */
  private lateCopy(
    state: MigrationState,
    type: ControllerCommand['type'],
  ): ControllerCommand | undefined {
    const controller = state.controller;
    if (type !== 'plan' || controller.next === null) return undefined;
    return { type: 'plan', num: controller.current + 1 };
  }

  /** One command the driver's beliefs call for (to `gid`, when given) reaches its group. */
  private send(
    state: MigrationState,
    types: readonly GroupCommand['type'][],
    shard: number,
    gid: Gid | null,
    faults: { readonly lost: boolean; readonly duplicate: boolean },
  ): MigrationState | null {
    const ticked = this.tick(state);
    // A loop, not find(): this runs for every driver action of every state.
    let send: Send | undefined;
    for (const candidate of ticked.step.sends) {
      if (!types.includes(candidate.command.type) || shardOf(candidate.command) !== shard) {
        continue;
      }
      if (gid !== null && candidate.to !== gid) continue;
      send = candidate;
      break;
    }
    if (send === undefined) return null;
    let current: MigrationState | null = ticked.state;
    if (faults.duplicate) current = this.network.keep(current, send);
    if (current === null) return null;
    const delivered = this.network.deliver(current, send.to, send.command);
    if (faults.lost) return delivered.state;
    return this.reply(delivered.state, send.to, send.command, delivered.result);
  }

  private crash(state: MigrationState): MigrationState | null {
    if (state.crashes >= this.bounds.maxCrashes) return null;
    const restarted = stepDriver(state.controller, idleDriver, { type: 'start' },
      this.bugs.migration, this.limits);
    if (sameBeliefs(restarted.driver, state.driver)) return null;
    return this.perform({ ...state, crashes: state.crashes + 1 }, restarted);
  }

  /**
   * A step's effects: its beliefs, and the commands it sends that its retry timer would not
   * send again, delivered now with their replies. Its other commands and its proposals wait
   * for the actions above (the tick returns them again).
   */
  private perform(state: MigrationState, step: DriverStep): MigrationState {
    let current = step.driver === state.driver ? state : { ...state, driver: step.driver };
    for (const send of this.sentOnce(current, step.sends)) {
      const delivered = this.network.deliver(current, send.to, send.command);
      current = delivered.state;
      const reply = this.step(current, { type: 'reply', from: send.to, command: send.command,
        result: delivered.result });
      assert(this.sentOnce(current, reply.sends).length === 0,
        'the reply to a command sent once sends another once');
      if (reply.driver !== current.driver) current = { ...current, driver: reply.driver };
    }
    return current;
  }

  private sentOnce(state: MigrationState, sends: readonly Send[]): Send[] {
    if (sends.length === 0) return [];
    // Not through this.tick: its memo holds the state being expanded, not its successor.
    const repeated = this.step(state, { type: 'tick' }).sends;
    return sends.filter((send) => !repeated.some((again) => sameSend(send, again)));
  }
}
