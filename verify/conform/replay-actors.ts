/**
 * The replay of a node's state machine and migration driver records (check (a) of
 * `shardkv conform`). The Raft replay queues what its apply and restoreSnapshot effects
 * hand to the state machine; each machine record must take the next item of that queue,
 * and the driver steps over the state machine's state as replayed up to that record.
 */
import {
  applyControllerCommand, type ControllerCommand, type ControllerState,
} from '../../spec/controller/state-machine.js';
import { noControllerBugs } from '../../spec/controller/bugs.js';
import { applyGroupCommand } from '../../spec/group/state-machine.js';
import { unboundedSizes, type SizeLimits } from '../../spec/group/size-policy.js';
import type { GroupCommand, GroupState, ShardState } from '../../spec/group/types.js';
import { fnv1a64 } from '../../spec/fnv.js';
import { noMigrationBugs } from '../../spec/migration/bugs.js';
import { stepDriver, type DriverInput } from '../../spec/migration/driver-step.js';
import { idleDriver, type DriverState } from '../../spec/migration/types.js';
import type { IndexedEntry, RaftNode, Snapshot } from '../../spec/raft/types.js';
import { appliedStateDigest } from '../../invariants/replica-agreement.js';
import type { ShardView } from '../../invariants/shard-view.js';
import { canonicalText } from './canonical.js';
import { sameValue } from './same-value.js';
import type { NodeSetup, TraceRecord } from '../../impl/trace/schema.js';
import {
  driverDigest, machineDigest, type MachineState,
} from '../../impl/trace/state-digest.js';
import { groupName, type Observation } from './observation.js';

export type MachineWork =
  | { readonly type: 'apply'; readonly entry: IndexedEntry<unknown> }
  | { readonly type: 'restore'; readonly snapshot: Snapshot<unknown> };

/** One node's replayed state, for the incarnation being replayed. */
export interface NodeReplay {
  setup: NodeSetup | null;
  raft: RaftNode<unknown, unknown> | null;
  machine: MachineState | null;
  chain: string;
  driver: DriverState;
  /** What the Raft replay handed to the state machine, taken in order from workHead. */
  work: MachineWork[];
  workHead: number;
  /** Where the facts the global invariants read go, as they are replayed. */
  readonly observe: (observation: Observation) => void;
  inc: number;
}

type Problem = readonly [string, string?, string?] | null;

const takenBeforeCompaction = 1024;

/** The size policy the node ran with (traces from before it had one: none). */
function sizeLimits(replay: NodeReplay): SizeLimits {
  const maxValueBytes = replay.setup?.maxValueBytes;
  return maxValueBytes === undefined ? unboundedSizes : { maxValueBytes };
}

function applyCommand(machine: MachineState, command: unknown, limits: SizeLimits): {
  machine: MachineState; result: unknown;
} {
  if (machine.kind === 'controller') {
    const applied = applyControllerCommand(machine.state, command as ControllerCommand,
      noControllerBugs);
    return { machine: { kind: 'controller', state: applied.state }, result: applied.result };
  }
  const applied = applyGroupCommand(machine.state, command as GroupCommand, noMigrationBugs,
    limits);
  return { machine: { kind: 'group', state: applied.state }, result: applied.result };
}

/**
 * Whether parsed `recorded` has the JSON text of `wanted`, an object of numbers and strings:
 * the same keys in the same order and the same values (JSON.stringify of both, without
 * writing either: this runs for every state machine record).
 */
function sameJsonText(wanted: Readonly<Record<string, string | number>>,
  recorded: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(wanted);
  const recordedKeys = Object.keys(recorded);
  if (recordedKeys.length !== keys.length) return false;
  for (let at = 0; at < keys.length; at++) {
    const key = keys[at]!;
    if (recordedKeys[at] !== key || recorded[key] !== wanted[key]) return false;
  }
  return true;
}

export function replayMachine(replay: NodeReplay, record: TraceRecord): Problem {
  const work = replay.work[replay.workHead];
  const input = record.input as Record<string, unknown>;
  if (work === undefined) return ['a state machine step that no Raft effect asked for'];
  replay.workHead++;
  // What was taken is dropped now and then, so a long trace does not keep every entry alive.
  if (replay.workHead >= takenBeforeCompaction && replay.workHead * 2 >= replay.work.length) {
    replay.work.splice(0, replay.workHead);
    replay.workHead = 0;
  }
  const index = work.type === 'apply' ? work.entry.index : work.snapshot.lastIncludedIndex;
  const wanted: Record<string, string | number> = work.type === 'apply'
    ? { type: 'apply', index, term: work.entry.term } : { type: 'restore', index };
  if (!sameJsonText(wanted, input)) {
    return ['the state machine input differs from what Raft handed over',
      JSON.stringify(wanted), JSON.stringify(input)];
  }
  let effects: unknown[] = [];
  if (work.type === 'restore') {
    replay.machine = { kind: replay.machine!.kind, state: work.snapshot.data } as MachineState;
  } else if (work.entry.command !== null) {
    const applied = applyCommand(replay.machine!, work.entry.command, sizeLimits(replay));
    replay.machine = applied.machine;
    effects = [applied.result];
  }
  if (!sameValue(effects, record.effects)) {
    return ['the result differs from the spec\'s', canonicalText(effects),
      canonicalText(record.effects)];
  }
  const digest = machineDigest(replay.chain, index, replay.machine!);
  if (digest !== record.digest) return ['the state digest differs', digest, record.digest];
  replay.chain = digest;
  observeMachine(replay, record, work, index);
  return null;
}

/**
 * A shard record's phase and identity, the part the global invariants read (not its data,
 * which the observations would keep alive). Records are immutable and a
 * step replaces only those it changes, so one view per record is shared by every state.
 */
const shardViews = new WeakMap<ShardState, ShardView>();

function shardView(record: ShardState): ShardView {
  let view = shardViews.get(record);
  if (view === undefined) {
    view = { phase: record.phase, identity: record.identity };
    shardViews.set(record, view);
  }
  return view;
}

function observeMachine(
  replay: NodeReplay, record: TraceRecord, work: MachineWork, index: number,
): void {
  const { node, seq, lamport } = record;
  const gid = replay.setup!.gid;
  if (work.type === 'apply') {
    replay.observe({
      node, seq, lamport, kind: 'applied', group: groupName(gid), index,
      term: work.entry.term, commandDigest: fnv1a64(canonicalText(work.entry.command)),
    });
  }
  replay.observe({ node, seq, lamport, kind: 'state', group: groupName(gid), index,
    digest: appliedStateDigest(replay.machine!.state) });
  if (gid !== null) {
    const group = replay.machine!.state as GroupState;
    replay.observe({ node, seq, lamport, kind: 'served', gid, appliedIndex: index,
      shards: group.shards.map(shardView) });
  } else {
    const controller = replay.machine!.state as ControllerState;
    replay.observe({ node, seq, lamport, kind: 'intent',
      current: controller.current, next: controller.next?.num ?? null });
  }
}

export function replayDriver(replay: NodeReplay, record: TraceRecord): Problem {
  const machine = replay.machine!;
  if (machine.kind !== 'controller') return ['a driver step at a replica group server'];
  const input = record.input as DriverInput | { type: 'stop' };
  let effects: unknown[] = [];
  if (input.type === 'stop') {
    replay.driver = idleDriver;
  } else {
    const stepped = stepDriver(machine.state as ControllerState, replay.driver, input,
      noMigrationBugs);
    replay.driver = stepped.driver;
    effects = [{ sends: stepped.sends, proposals: stepped.proposals }];
  }
  if (!sameValue(effects, record.effects)) {
    return ['the driver\'s effects differ from the spec\'s', canonicalText(effects),
      canonicalText(record.effects)];
  }
  const digest = driverDigest(replay.driver);
  if (digest !== record.digest) return ['the driver\'s digest differs', digest, record.digest];
  return null;
}
