/**
 * The tracer of one server incarnation (DESIGN §5 Tracing): the shell calls it after every
 * actor step and it appends one record (schema.ts) to the node's sink. It also keeps the
 * node's Lamport clock: every frame the node sends carries a stamp (a message id and the
 * clock), every stamped frame received moves the clock forward, and every record ticks it.
 *
 * Raft sends get their ids when the step is recorded (the record lists them) and their
 * stamps when the shell actually sends them, after the step's persist was synced: the
 * stamp's clock then exceeds the `synced` record's, which is how conform checks that a
 * message left only after what it depends on was durable.
 */
import type { DriverInput, DriverStep } from '../../spec/migration/driver-step.js';
import type { DriverState } from '../../spec/migration/types.js';
import type { Effect, Input, RaftNode } from '../../spec/raft/types.js';
import { stringifyWithMaps } from '../node/json-maps.js';
import type { Stamp } from '../node/wire.js';
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
  /** Ids of the last Raft step's sends not yet sent, in effect order. */
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
    this.pendingIds = [];
    this.pendingHead = 0;
    const traced = effects.map((effect) => {
      if (effect.type !== 'send') return effect;
      const id = messageId(this.name, this.incarnation, ++this.messageCounter);
      this.pendingIds.push(id);
      return { ...effect, id };
    });
    const seq = this.write('raft', tracedRaftInput(input), traced, raftDigest(after),
      input.type === 'restart' ? this.setup : undefined);
    if (input.type === 'restart') this.machineChain = machineDigestStart;
    if (effects.some(isSave)) this.lastSaveStep = seq;
  }

  /** The saves of the last Raft step are durable. */
  synced(): void {
    this.write('shell', { type: 'synced', step: this.lastSaveStep }, []);
  }

  machineStep(input: MachineInput, result: unknown, machine: MachineState): void {
    this.machineChain = machineDigest(this.machineChain, input.index, machine);
    this.write('machine', input, result === undefined ? [] : [result], this.machineChain);
  }

  driverStep(input: TracedDriverInput, step: DriverStep | null, driver: DriverState): void {
    const effects = step === null ? [] : [{ sends: step.sends, proposals: step.proposals }];
    this.write('driver', input, effects, driverDigest(driver));
  }

  private write(
    actor: TraceActor, input: unknown, effects: readonly unknown[], digest?: string,
    setup?: NodeSetup,
  ): number {
    const position = {
      seq: this.position.seq + 1, inc: this.incarnation, lamport: this.position.lamport + 1,
    };
    this.position = position;
    const record = {
      v: traceVersion, node: this.name, seq: position.seq, inc: position.inc,
      lamport: position.lamport, actor, input, effects,
      ...(digest === undefined ? {} : { digest }), ...(setup === undefined ? {} : { setup }),
    };
    this.sink.append(stringifyWithMaps(record), position);
    return position.seq;
  }
}

function isSave(effect: Effect<unknown, unknown>): boolean {
  return effect.type === 'saveSnapshot' || effect.type === 'saveEntries' ||
    effect.type === 'saveHardState';
}

/** A delivered message names its id and the sender's clock at sending; other inputs as is. */
function tracedRaftInput(input: RaftInput): unknown {
  if (input.type !== 'message') return input;
  const { stamp, ...rest } = input;
  return { ...rest, id: stamp?.id ?? null, sentLamport: stamp?.clock ?? null };
}
