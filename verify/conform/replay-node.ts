/**
 * Check (a) of `shardkv conform`: replays one node's records through the spec's step
 * functions (DESIGN §5 Tracing). From the restart record of each incarnation (the node's
 * initial state plus exactly what it loaded), every recorded input goes into spec/raft
 * `step`, every applied entry into the state machine (`applyGroupCommand` or
 * `applyControllerCommand`) and every driver input into `stepDriver`, always with no bug
 * switch on: the effects and the digest the spec gives must equal the recorded ones. A node
 * that ran a bug switch therefore diverges at its first step where the bug mattered.
 */
import { initialControllerState } from '../../spec/controller/state-machine.js';
import { emptyGroup } from '../../spec/group/group.js';
import { initialNode } from '../../spec/raft/node.js';
import { step } from '../../spec/raft/step.js';
import type { Effect, Input, RaftNode } from '../../spec/raft/types.js';
import { idleDriver } from '../../spec/migration/types.js';
import { canonicalText } from './canonical.js';
import { sameEffects } from './same-value.js';
import { btreeMaps } from '../../impl/node/replica-machine.js';
import type { NodeSetup, TraceRecord } from '../../impl/trace/schema.js';
import { machineDigestStart, raftDigest } from '../../impl/trace/state-digest.js';
import { contextSteps, shown, type Divergence } from './divergence.js';
import { groupName, type Observation } from './observation.js';
import { replayDriver, replayMachine, type NodeReplay } from './replay-actors.js';

type RaftEffect = Effect<unknown, unknown>;

export function describeRecord(record: TraceRecord): string {
  const input = record.input as { type: string; message?: { type: string }; index?: number };
  const detail = input.message?.type ?? (input.index === undefined ? '' : `${input.index}`);
  return `step ${record.seq} (${record.actor}, lamport ${record.lamport}): ${input.type}` +
    (detail === '' ? '' : ` ${detail}`);
}

/**
 * Replays one node's records as they are read; after the first divergence it only counts.
 * Keeps the few records before the current one for the divergence's context.
 */
export class NodeReplayer {
  divergence: Divergence | null = null;
  private readonly replay: NodeReplay;
  private readonly recent: TraceRecord[] = [];

  /** @param observe takes the facts for the global invariants as they are replayed */
  constructor(private readonly node: string, observe: (observation: Observation) => void) {
    this.replay = {
      setup: null, raft: null, machine: null, chain: machineDigestStart, driver: idleDriver,
      work: [], workHead: 0, observe, inc: 0,
    };
  }

  /** The setup of the incarnation being replayed (null before the first restart record). */
  get setup(): NodeSetup | null {
    return this.replay.setup;
  }

  next(record: TraceRecord): void {
    if (this.divergence !== null) return;
    const problem = this.problemOf(record);
    if (problem !== null) {
      const [what, expected, recorded] = problem;
      this.divergence = {
        check: 'replay', what, node: this.node, step: record.seq, actor: record.actor,
        lamport: record.lamport,
        ...(expected === undefined ? {} : { expected: shown(expected) }),
        ...(recorded === undefined ? {} : { recorded: shown(recorded) }),
        before: this.recent.map(describeRecord),
      };
      return;
    }
    this.recent.push(record);
    if (this.recent.length > contextSteps) this.recent.shift();
  }

  private problemOf(record: TraceRecord): Problem {
    const order = orderProblem(this.recent.at(-1) ?? null, record);
    if (order !== null) return [order];
    try {
      return replayRecord(this.replay, record);
    } catch (error) {
      return [`the spec refuses this input: ${(error as Error).message}`];
    }
  }
}

function orderProblem(previous: TraceRecord | null, record: TraceRecord): string | null {
  const expectedSeq = (previous?.seq ?? 0) + 1;
  if (record.seq !== expectedSeq) return `sequence number ${record.seq}, expected ${expectedSeq}`;
  if (previous !== null && record.lamport <= previous.lamport) {
    return `Lamport clock ${record.lamport} does not exceed the previous ${previous.lamport}`;
  }
  if (previous !== null && record.inc < previous.inc) return 'the incarnation goes back';
  return null;
}

type Problem = readonly [string, string?, string?] | null;

function replayRecord(replay: NodeReplay, record: TraceRecord): Problem {
  if (record.inc !== replay.inc) {
    const input = record.input as { type: string };
    if (record.actor !== 'raft' || input.type !== 'restart' || record.setup === undefined) {
      return [`incarnation ${record.inc} does not begin with a restart record`];
    }
    startIncarnation(replay, record);
  }
  switch (record.actor) {
    case 'raft':
      return replayRaft(replay, record);
    case 'machine':
      return replayMachine(replay, record);
    case 'driver':
      return replayDriver(replay, record);
    case 'shell':
      return null;
  }
}

function startIncarnation(replay: NodeReplay, record: TraceRecord): void {
  const setup = record.setup!;
  replay.inc = record.inc;
  replay.setup = setup;
  replay.raft = initialNode(setup.id, setup.peers.length);
  replay.machine = setup.gid === null
    ? { kind: 'controller', state: initialControllerState(setup.shardCount) }
    : { kind: 'group', state: emptyGroup(setup.gid, setup.shardCount, btreeMaps) };
  replay.chain = machineDigestStart;
  replay.driver = idleDriver;
  replay.work = [];
  replay.workHead = 0;
}

/** The spec's input: a delivered message without the trace's id and sending clock. */
function specInput(input: Record<string, unknown>): Input<unknown, unknown> {
  if (input.type !== 'message') return input as unknown as Input<unknown, unknown>;
  return { type: 'message', from: input.from as number, message: input.message as never };
}

/** Recorded effects without the trace's message ids. */
function withoutIds(effects: readonly unknown[]): unknown[] {
  return effects.map((effect) => {
    const { id: _id, ...rest } = effect as { id?: unknown };
    return (effect as { type?: unknown }).type === 'send' ? rest : effect;
  });
}

function replayRaft(replay: NodeReplay, record: TraceRecord): Problem {
  const setup = replay.setup!;
  const result = step(replay.raft as RaftNode<unknown, unknown>,
    specInput(record.input as Record<string, unknown>), setup.raftOptions);
  if (!sameEffects(result.effects, record.effects)) {
    return ['the effects differ from the spec\'s', canonicalText(result.effects),
      canonicalText(withoutIds(record.effects))];
  }
  const digest = raftDigest(result.node);
  if (digest !== record.digest) return ['the state digest differs', digest, record.digest];
  const before = replay.raft!;
  replay.raft = result.node;
  for (const effect of result.effects as readonly RaftEffect[]) {
    if (effect.type === 'apply') {
      for (const entry of effect.entries) replay.work.push({ type: 'apply', entry });
    } else if (effect.type === 'restoreSnapshot') {
      replay.work.push({ type: 'restore', snapshot: effect.snapshot });
    }
  }
  const newLeader = before.role !== 'leader' || before.currentTerm !== result.node.currentTerm;
  if (result.node.role === 'leader' && newLeader) {
    const { node, seq, lamport } = record;
    replay.observe({
      node, seq, lamport, kind: 'leader', group: groupName(setup.gid),
      term: result.node.currentTerm,
    });
  }
  return null;
}
