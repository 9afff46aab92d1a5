/**
 * The tracer of one server incarnation (DESIGN §5 Tracing): the shell calls it after every
 * actor step and it appends one record (schema.ts) to the node's sink. It also keeps the
 * node's Lamport clock: every frame the node sends carries a stamp (a message id and the
 * clock), every stamped frame received moves the clock forward, and every record ticks it.
 *
 * Raft sends get their ids when the step is recorded (the record lists them) and their
 * stamps when the shell actually sends them, after the saves they wait for were synced
 * (spec/raft SyncDuty): the stamp's clock then exceeds the `synced` record's, which is how
 * conform checks that a message left only after what it depends on was durable.
 */
import type { DriverInput, DriverStep } from '../../spec/migration/driver-step.js';
import type { DriverState } from '../../spec/migration/types.js';
import type { Effect, Input, RaftNode } from '../../spec/raft/types.js';
import type { ControllerCommandResult } from '../../spec/controller/state-machine.js';
import type { GroupResult } from '../../spec/group/types.js';
import { stringifyWithMaps } from '../node/json-maps.js';
import type { Stamp } from '../node/wire.js';
import { effectText, inputText } from './record-text.js';
import {
  messageId, traceVersion, type NodeSetup, type TraceActor, type TracePosition,
} from './schema.js';
import {
  driverDigest, machineDigest, machineDigestStart, raftDigest, type MachineState,
} from './state-digest.js';
import type { TraceSink } from './trace-sink.js';

type RaftInput = Input<unknown, unknown> & { readonly stamp?: Stamp };

/** A machine input: an applied entry (its command is in the Raft step's apply effect) or a
 * snapshot restored. */
export type MachineInput =
  | { readonly type: 'apply'; readonly index: number; readonly term: number }
  | { readonly type: 'restore'; readonly index: number };

/** A driver input as traced: the spec's, or `stop` (leadership lost: beliefs dropped). */
export type TracedDriverInput = DriverInput | { readonly type: 'stop' };

export class NodeTracer {
  private position: TracePosition;
  private readonly incarnation: number;
  private messageCounter = 0;
  /**
   * Ids of Raft steps' sends not yet sent, in step and effect order: the sends of steps that
   * share one sync leave after the last of those steps (raft-loop.ts).
   */
  private pendingIds: string[] = [];
  private pendingHead = 0;
  /** The seq of the last Raft step with save effects, for its `synced` record. */
  private lastSaveStep = 0;
  private machineChain = machineDigestStart;

  constructor(
    private readonly name: string,
    private readonly sink: TraceSink,
    private readonly setup: NodeSetup,
  ) {
    const last = sink.resume();
    this.incarnation = last.inc + 1;
    this.position = { ...last, inc: this.incarnation };
  }

  /** A stamped frame arrived: the clock moves past the sender's. */
  receive(stamp: Stamp | undefined): void {
    if (stamp !== undefined && stamp.clock > this.position.lamport) {
      this.position = { ...this.position, lamport: stamp.clock };
    }
  }

  /** The stamp of a frame leaving now: a Raft send of the last step, or a request / reply. */
  stampSend(raft: boolean): Stamp {
    const lamport = this.position.lamport + 1;
    this.position = { ...this.position, lamport };
    const id = raft && this.pendingHead < this.pendingIds.length
      ? this.pendingIds[this.pendingHead++]!
      : messageId(this.name, this.incarnation, ++this.messageCounter);
    return { id, clock: lamport };
  }

  raftStep(input: RaftInput, after: RaftNode<unknown, unknown>, effects: readonly Effect<unknown,
    unknown>[]): void {
    if (this.pendingHead === this.pendingIds.length) {
      this.pendingIds = [];
      this.pendingHead = 0;
    }
    let saves = false;
    const effectTexts = effects.map((effect) => {
      if (effect.type !== 'send') {
        saves ||= isSave(effect);
        return effectText(effect, null);
      }
      const id = messageId(this.name, this.incarnation, ++this.messageCounter);
      this.pendingIds.push(id);
      return effectText(effect, id);
    });
    const stamp = input.stamp;
    const restart = input.type === 'restart';
    const seq = this.write('raft', inputText(input, stamp?.id ?? null, stamp?.clock ?? null),
      effectTexts, raftDigest(after), restart ? JSON.stringify(this.setup) : undefined);
    if (restart) this.machineChain = machineDigestStart;
    if (saves) this.lastSaveStep = seq;
  }

  /**
   * A sync starts: it covers the saves of every Raft step so far. The callback records that
   * they are durable, once the sync completed (syncs complete in the order they start).
   */
  syncing(): () => void {
    const step = this.lastSaveStep;
    return () => this.write('shell', `{"type":"synced","step":${step}}`, []);
  }

  machineStep(input: MachineInput, result: GroupResult | ControllerCommandResult | undefined,
    machine: MachineState): void {
    this.machineChain = machineDigest(this.machineChain, input.index, machine);
    // Of all results only a freeze's image and a fetched part hold ordered maps.
    const maps = result?.type === 'image' || result?.type === 'part';
    const effects = result === undefined ? []
      : [maps ? stringifyWithMaps(result) : JSON.stringify(result)];
    this.write('machine', JSON.stringify(input), effects, this.machineChain);
  }

  driverStep(input: TracedDriverInput, step: DriverStep | null, driver: DriverState): void {
    const effects = step === null ? []
      : [stringifyWithMaps({ sends: step.sends, proposals: step.proposals })];
    this.write('driver', stringifyWithMaps(input), effects, driverDigest(driver));
  }

  /** Appends one record built from JSON texts; returns its sequence number. */
  private write(
    actor: TraceActor, inputText: string, effectTexts: readonly string[], digest?: string,
    setupText?: string,
  ): number {
    const position = {
      seq: this.position.seq + 1, inc: this.incarnation, lamport: this.position.lamport + 1,
    };
    this.position = position;
    const line = `{"v":${traceVersion},"node":${JSON.stringify(this.name)},` +
      `"seq":${position.seq},"inc":${position.inc},"lamport":${position.lamport},` +
      `"actor":"${actor}","input":${inputText},"effects":[${effectTexts.join(',')}]` +
      (digest === undefined ? '' : `,"digest":"${digest}"`) +
      (setupText === undefined ? '' : `,"setup":${setupText}`) + '}';
    this.sink.append(line, position);
    return position.seq;
  }
}

function isSave(effect: Effect<unknown, unknown>): boolean {
  return effect.type === 'saveSnapshot' || effect.type === 'saveEntries' ||
    effect.type === 'saveHardState';
}
