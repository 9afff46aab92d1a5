/**
 * The `controller` model: every sequence of Join / Leave / Move over a small universe of gids
 * (1..gids), applied to the controller's replicated state machine, up to `ops` configuration
 * changes of which at most `moves` are Moves, with a Query(n) of every configuration number
 * (-1 the latest) after each. Join and Leave take any non-empty set of gids, Move any shard
 * and gid. Requests the controller refuses (joining a member, leaving a non-member), Moves to
 * a shard's owner (CONTRACT: no configuration) and Queries change nothing: as self-loops they
 * reach no new state, so the model reports them as not enabled.
 *
 * The state keeps the latest configuration and the one before it, and Query answers from
 * them (CONTRACT's "every historical configuration stays identical" is checked on the
 * answers, not only on the list): Query(-1), Query(n) of both kept numbers and of the next
 * (past the end). MinimalMoves, Deterministic, HistoryImmutable and MoveToOwnerNoOp are properties of a
 * step (they relate the state before to the one after, or a Query to its answer), so, as TLA+
 * specs do with history variables, the step measures them and the state keeps the
 * measurement: `lastRebalance` (moved, minimum, orderIndependent) for the Join or Leave that
 * made the latest configuration; `historyKept`, false once a step rewrote an earlier
 * configuration or a Query answered another than the one held at its number; `noOpMovesKept`,
 * false once a Move to a shard's owner made a configuration.
 *
 * `moves` bounds the Moves separately because each one multiplies the space by four or five
 * (any shard to any group, and shards are not interchangeable: ties are broken by number).
 */
import { defineModel, integer } from '../../checker/define-model.js';
import type { Model } from '../../checker/model.js';
import type { WordReader, WordWriter } from '../../checker/words.js';
import { assert } from '../../spec/assert.js';
import {
  freezeConfig, keepsFrozenHistory, queryAnswersHistory,
} from '../../invariants/config-history.js';
import { isOrderIndependent } from '../../invariants/controller-configs.js';
import { controllerInvariantNames, type RebalanceSummary } from '../../invariants/controller.js';
import { controllerModelInvariants } from './invariants.js';
import { initialConfig, memberGids } from '../../spec/controller/operations.js';
import { bugSwitches } from '../../spec/bug-catalog.js';
import {
  controllerBugNames,
  controllerBugs,
  noControllerBugs,
  type ControllerBugs,
} from '../../spec/controller/bugs.js';
import { minimumMoves, movedShards } from '../../spec/controller/rebalance.js';
import {
  applyOperation,
  initialControllerState,
  latestConfig,
  type ControllerOperation,
} from '../../spec/controller/state-machine.js';
import type { Config, Gid } from '../../spec/controller/types.js';
import { controllerDiagram } from './diagram.js';

export type { RebalanceSummary } from '../../invariants/controller.js';

export interface ControllerModelState {
  readonly latest: Config;
  /**
   * History: the configuration before `latest` (null for configuration 0), as the state
   * machine holds it; Query reads these two. The older ones are not kept: keeping them all
   * makes every path its own state (over 800,000 states at depth 6 where 148,940 were).
   */
  readonly previous: Config | null;
  /** History variable: the step that made `latest`, when it was a Join or Leave. */
  readonly lastRebalance: RebalanceSummary | null;
  /**
   * History variable: every step so far kept the earlier configurations unchanged, and every
   * Query answered the configuration held at its number.
   */
  readonly historyKept: boolean;
  /** History variable: no Move to a shard's owner made a configuration. */
  readonly noOpMovesKept: boolean;
  /** How many Moves made a configuration so far (bounded by `moves`). */
  readonly movesDone: number;
}

export type ControllerAction = ControllerOperation;

export interface ControllerBounds {
  readonly gids: number;
  readonly shards: number;
  readonly ops: number;
  readonly moves: number;
}

export const maximumModelGids = 8;
export const maximumModelShards = 64;
export const maximumModelOps = 30;

/** The servers of the model's groups, one frozen list per gid, shared by every state. */
const modelServers: readonly (readonly string[])[] = Array.from(
  { length: maximumModelGids + 1 },
  (_, gid) => Object.freeze([`g${gid}-0`]),
);

/** A group's servers in the model: one server named as `cluster start` names nodes. */
export const serversOf = (gid: Gid): readonly string[] => modelServers[gid]!;

/**
 * Join(S) and Leave(S) for every non-empty S of 1..gids, then Move(shard, gid), then Query(n)
 * for n = -1 (the latest) and every configuration number 0..ops.
 */
export function controllerActions(bounds: ControllerBounds): ControllerAction[] {
  const subsets: Gid[][] = [];
  for (let mask = 1; mask < 1 << bounds.gids; mask++) {
    subsets.push(universe(bounds.gids).filter((gid) => (mask & (1 << (gid - 1))) !== 0));
  }
  const actions: ControllerAction[] = [];
  for (const gids of subsets) {
    const groups: Record<number, readonly string[]> = {};
    for (const gid of gids) groups[gid] = serversOf(gid);
    actions.push({ type: 'join', groups });
  }
  for (const gids of subsets) actions.push({ type: 'leave', gids });
  for (let shard = 0; shard < bounds.shards; shard++) {
    for (const gid of universe(bounds.gids)) actions.push({ type: 'move', shard, gid });
  }
  for (let num = -1; num <= bounds.ops; num++) actions.push({ type: 'query', num });
  return actions;
}

const universe = (gids: number): Gid[] => Array.from({ length: gids }, (_, index) => index + 1);

/** The machine the model's steps run on: only the latest configuration matters to them. */
const emptyMachine = initialControllerState(1);

/** One step: the command applied to the state machine, and the history variables updated. */
export function stepController(
  state: ControllerModelState,
  action: ControllerAction,
  bugs: ControllerBugs,
): ControllerModelState {
  // The model's configurations are frozen (decode and this function freeze them), so a step
  // that wrote into one would throw; keepsFrozenHistory checks that none was replaced.
  const machine = { ...emptyMachine, configs: keptConfigs(state) };
  const step = applyOperation(machine, action, bugs);
  if (action.type === 'query') {
    const answered = step.result.type === 'config' &&
      queryAnswersHistory(machine.configs, action.num, step.result.config);
    return answered || !state.historyKept ? state : { ...state, historyKept: false };
  }
  const after = step.state;
  const historyKept = state.historyKept && keepsFrozenHistory(machine, after);
  const latest = freezeConfig(latestConfig(after));
  const toOwner = action.type === 'move' && state.latest.shards[action.shard] === action.gid;
  const noOpMovesKept = state.noOpMovesKept && !(toOwner && latest !== state.latest);
  const flags = { historyKept, noOpMovesKept };
  if (latest === state.latest) {
    const same = historyKept === state.historyKept && noOpMovesKept === state.noOpMovesKept;
    return same ? state : { ...state, ...flags };
  }
  const previous = freezeConfig(after.configs[after.configs.length - 2]!);
  if (action.type === 'move') {
    return { latest, previous, lastRebalance: null, ...flags, movesDone: state.movesDone + 1 };
  }
  const lastRebalance = summarizeRebalance(state.latest.shards, latest, bugs);
  return { latest, previous, lastRebalance, ...flags, movesDone: state.movesDone };
}

/** Stands for each configuration older than `previous`, which the model does not keep. */
const notKept: Config = freezeConfig({ num: -1, shards: [], groups: {} });

/** The state machine's list as the model keeps it: `notKept` before previous and latest. */
function keptConfigs(state: ControllerModelState): Config[] {
  const configs = Array<Config>(state.latest.num + 1).fill(notKept);
  if (state.previous !== null) configs[state.latest.num - 1] = state.previous;
  configs[state.latest.num] = state.latest;
  return configs;
}

/** Query(n) reads a kept configuration: -1, n = latest - 1, latest, or past the end. */
function queriesKept(state: ControllerModelState, num: number): boolean {
  const latest = state.latest.num;
  return num === -1 || (num >= latest - 1 && num <= latest + 1);
}

/** Measures a Join's or Leave's rebalance of `before` into `after`. */
export function summarizeRebalance(
  before: readonly Gid[],
  after: Config,
  bugs: ControllerBugs,
): RebalanceSummary {
  const gids = memberGids(after);
  return {
    moved: movedShards(before, after.shards),
    minimum: minimumMoves(before, gids),
    orderIndependent: isOrderIndependent(bugs, before, gids, after.shards),
  };
}

/** Labels name gids and shards by their numbers, as the printed states do. */
export function label(action: ControllerAction): string {
  const gids = (list: readonly number[]) => list.map((gid) => `gid ${gid}`).join(', ');
  switch (action.type) {
    case 'join':
      return `Join(${gids(memberGids({ num: 0, shards: [], groups: action.groups }))})`;
    case 'leave':
      return `Leave(${gids(action.gids)})`;
    case 'move':
      return `Move(shard ${action.shard}, gid ${action.gid})`;
    case 'query':
      return `Query(${action.num})`;
  }
}

const shardsPerWord = 8;

function pushShards(shards: readonly Gid[], out: WordWriter): void {
  let word = 0;
  for (let shard = 0; shard < shards.length; shard++) {
    word |= shards[shard]! << ((shard % shardsPerWord) * 4);
    if (shard % shardsPerWord === shardsPerWord - 1 || shard === shards.length - 1) {
      out.push(word);
      word = 0;
    }
  }
}

function readShards(shardCount: number, input: WordReader): Gid[] {
  const shards: Gid[] = [];
  let word = 0;
  for (let shard = 0; shard < shardCount; shard++) {
    if (shard % shardsPerWord === 0) word = input.next();
    shards.push((word >>> ((shard % shardsPerWord) * 4)) & 15);
  }
  return shards;
}

const keptBit = 1 << 16;
const rebalancedBit = 1 << 17;
const orderIndependentBit = 1 << 18;
const noOpMovesKeptBit = 1 << 19;

/** A configuration's members as a bit set (gids <= maximumModelGids). */
function memberBits(config: Config): number {
  let bits = 0;
  for (const gid of memberGids(config)) bits |= 1 << (gid - 1);
  return bits;
}

function groupsOf(bits: number): Record<number, readonly string[]> {
  const groups: Record<number, readonly string[]> = {};
  for (let gid = 1; gid <= maximumModelGids; gid++) {
    if ((bits & (1 << (gid - 1))) !== 0) groups[gid] = serversOf(gid);
  }
  return groups;
}

/**
 * num, movesDone, then the latest's members as a bit set with the flags, the summary's two
 * counts, its shards at 4 bits each (gids <= 15); then the previous configuration's members
 * and shards (none for configuration 0).
 */
function encode(state: ControllerModelState, out: WordWriter): void {
  let head = memberBits(state.latest);
  if (state.historyKept) head |= keptBit;
  if (state.noOpMovesKept) head |= noOpMovesKeptBit;
  const summary = state.lastRebalance;
  if (summary !== null) head |= rebalancedBit;
  if (summary?.orderIndependent) head |= orderIndependentBit;
  out.push(state.latest.num);
  out.push(state.movesDone);
  out.push(head);
  out.push(summary === null ? 0 : summary.moved | (summary.minimum << 8));
  pushShards(state.latest.shards, out);
  if (state.previous === null) return;
  out.push(memberBits(state.previous));
  pushShards(state.previous.shards, out);
}

function decoder(shardCount: number) {
  return (input: WordReader): ControllerModelState => {
    const num = input.next();
    const movesDone = input.next();
    const head = input.next();
    const counts = input.next();
    const groups = groupsOf(head);
    const shards = readShards(shardCount, input);
    const previous = num === 0 ? null : freezeConfig({ num: num - 1,
      groups: groupsOf(input.next()), shards: readShards(shardCount, input) });
    const lastRebalance = (head & rebalancedBit) === 0 ? null : {
      moved: counts & 255,
      minimum: counts >>> 8,
      orderIndependent: (head & orderIndependentBit) !== 0,
    };
    const historyKept = (head & keptBit) !== 0;
    const noOpMovesKept = (head & noOpMovesKeptBit) !== 0;
    const latest = freezeConfig({ num, shards, groups });
    return { latest, previous, lastRebalance, historyKept, noOpMovesKept, movesDone };
  };
}

export function createControllerModel(
  bounds: ControllerBounds,
  bugs: ControllerBugs = noControllerBugs,
): Model<ControllerModelState, ControllerAction> {
  const gidsInRange = bounds.gids >= 1 && bounds.gids <= maximumModelGids;
  assert(gidsInRange, `controller: bad gids ${bounds.gids}`);
  const actions = controllerActions(bounds);
  return {
    name: 'controller',
    initialStates: () => [{
      latest: freezeConfig(initialConfig(bounds.shards)),
      previous: null,
      lastRebalance: null,
      historyKept: true,
      noOpMovesKept: true,
      movesDone: 0,
    }],
    actions: () => actions,
    // A run ends when it has made its configuration changes: not a deadlock.
    isTerminal: (state) => state.latest.num >= bounds.ops,
    next: (state, action) => {
      // The bounds are guards: a step past them is not enabled (cheaper than a constraint).
      if (state.latest.num >= bounds.ops) return null;
      if (action.type === 'move' && state.movesDone >= bounds.moves) return null;
      if (action.type === 'query' && !queriesKept(state, action.num)) return null;
      // A request that changes nothing (refused, a Move to the owner, a Query) is a self-loop
      // and can reach no new state, so it is reported as not enabled; it still ran, so one
      // that did change something (or answered wrong) would be explored and checked.
      const next = stepController(state, action, bugs);
      return next === state ? null : next;
    },
    label,
    diagram: (before, action, after) => controllerDiagram(before, after, label(action)),
    invariants: controllerModelInvariants(bounds.shards),
    codec: { encode, decode: decoder(bounds.shards) },
    variables: (state) => ({
      num: state.latest.num,
      shards: state.latest.shards,
      groups: state.latest.groups,
      // None: the latest configuration was not made by Join or Leave.
      lastRebalance: state.lastRebalance,
      historyKept: state.historyKept,
      noOpMovesKept: state.noOpMovesKept,
      movesDone: state.movesDone,
      previousShards: state.previous?.shards ?? null,
    }),
  };
}

/** An integer bound: its description, default and range. */
const bound = (description: string, value: number, min: number, max: number) =>
  integer({ description, default: value, min, max });

/** The controller's own bugs (its skip-config shows only under the migration driver). */
const ownBugs = controllerBugs.filter(
  (bug): bug is Exclude<(typeof controllerBugs)[number], { model: string }> => !('model' in bug),
);

export const controllerDefinition = defineModel({
  name: 'controller',
  description:
    'the shard controller: every Join/Leave/Move sequence over a small gid universe, queried',
  params: {
    gids: bound('gid universe 1..N', 4, 1, maximumModelGids),
    shards: bound('shards', 10, 1, maximumModelShards),
    ops: bound('configuration changes (Join, Leave, Move)', 6, 0, maximumModelOps),
    moves: bound('of which Moves (each one: about 5x the states)', 1, 0, maximumModelOps),
  },
  bugs: ownBugs,
  create: (bounds, bug) =>
    createControllerModel(bounds, bugSwitches(controllerBugNames, bug === undefined ? [] : [bug])),
});
