/**
 * The `controller` model in the runtime: the controller group of three real controller
 * servers (controller-group.ts). Join / Leave / Move / Query are the administrator's requests,
 * committed, applied and answered. The model keeps the latest configuration and measures
 * each step (the rebalance summary, whether history stayed unchanged): the adapter measures
 * the same on the configurations the runtime applied, so every invariant of the model is
 * evaluated on the runtime's state. The migration driver the leader runs proposes plans of
 * its own; its requests to the groups stay held (no group server runs here), so no
 * configuration is published, which the model does not speak of either.
 */
import type { Params } from '../../checker/model.js';
import { bugSwitches } from '../../spec/bug-catalog.js';
import { controllerBugNames } from '../../spec/controller/bugs.js';
import type { Config } from '../../spec/controller/types.js';
import { queryAnswersHistory } from '../../invariants/config-history.js';
import {
  summarizeRebalance, type ControllerAction, type ControllerModelState, type RebalanceSummary,
} from '../../models/controller/model.js';
import { memberGids } from '../../spec/controller/operations.js';
import type { Gid } from '../../spec/controller/types.js';
import type { ClusterLayout } from '../../impl/node/api.js';
import type { ShellFaults } from '../../impl/node/shell-faults.js';
import { RuntimeDivergence, type RuntimeAdapter } from './adapter.js';
import { ControllerGroup, controllerNames } from './controller-group.js';
import { ReplayCluster } from './replay-cluster.js';

const adminName = 'admin';

/** Rebalance summaries remembered (STYLE 7: bounded); the memo starts afresh when full. */
const summariesMax = 10_000;
const summaries = new Map<string, RebalanceSummary>();

/**
 * summarizeRebalance of the runtime's configurations, remembered by value: it is a pure
 * function of the shards before, the configuration after and the bug, and mbt's walks make
 * the same Join or Leave from the same configuration again and again (each summary
 * rebalances the input twice more, in other gid orders).
 */
function rememberedSummary(
  bug: string | null,
  before: readonly Gid[],
  after: Config,
  bugs: Parameters<typeof summarizeRebalance>[2],
): RebalanceSummary {
  const key = `${bug}|${before.join()}|${after.shards.join()}|${memberGids(after).join()}`;
  let summary = summaries.get(key);
  if (summary === undefined) {
    if (summaries.size >= summariesMax) summaries.clear();
    summary = Object.freeze(summarizeRebalance(before, after, bugs));
    summaries.set(key, summary);
  }
  return summary;
}

class ControllerAdapter implements RuntimeAdapter<ControllerModelState, ControllerAction> {
  readonly comparedVariables = [
    'latest', 'previous', 'lastRebalance', 'historyKept', 'noOpMovesKept', 'movesDone',
  ];
  readonly evaluatedInvariants = [
    'ValidConfig', 'Balanced', 'MinimalMoves', 'Deterministic', 'HistoryImmutable',
    'MoveToOwnerNoOp',
  ];
  readonly undriven = {};
  private readonly cluster: ReplayCluster;
  private readonly group: ControllerGroup;
  private readonly bug: string | null;
  private readonly bugs;
  private adminSeq = 0;
  /** The runtime's measurements, as the model's history variables. */
  private measured: Omit<ControllerModelState, 'latest' | 'previous'> = {
    lastRebalance: null, historyKept: true, noOpMovesKept: true, movesDone: 0,
  };
  /** The configurations the runtime had applied after the last step. */
  private configs: readonly Config[] = [];

  constructor(params: Params, bug: string | null, faults: Partial<ShellFaults>) {
    const layout: ClusterLayout = {
      shardCount: params['shards'] as number, controllers: controllerNames, groups: {},
    };
    this.bug = bug;
    this.bugs = bugSwitches(controllerBugNames, bug === null ? [] : [bug]);
    // Elections happen when the adapter says: no pre-vote round, no lease to wait out.
    const tuning = { preVote: false, checkQuorum: false };
    this.cluster = new ReplayCluster({
      layout, tuning, bugs: { controller: this.bugs, shell: faults }, adminName,
    });
    this.group = new ControllerGroup(this.cluster);
  }

  async setUp(): Promise<void> {
    await this.cluster.startAll(this.cluster.names);
    await this.group.elect(this.group.leader);
    this.configs = this.group.state().configs;
  }

  tearDown(): void {
    for (const name of this.cluster.names) this.cluster.crash(name);
  }

  counterpart(): undefined {
    return undefined;
  }

  async perform(action: ControllerAction): Promise<string | null> {
    const command = { ...action, client: adminName, seq: this.adminSeq++ };
    const body = await this.group.ask(adminName, command);
    if (body.type !== 'controller-result') {
      throw new RuntimeDivergence(`the controller answered ${JSON.stringify(body)}`);
    }
    const before = this.configs;
    const after = this.group.state().configs;
    this.configs = after;
    const previous = before[before.length - 1]!;
    const latest = after[after.length - 1]!;
    if (action.type === 'query') {
      const answered = body.result.type === 'config' &&
        queryAnswersHistory(before, action.num, body.result.config);
      const historyKept = this.measured.historyKept && answered && latest === previous;
      this.measured = { ...this.measured, historyKept };
      return null;
    }
    // An applied configuration the step left alone is the same object (the state machine's
    // updates share what they do not change): only a replaced one is compared by value.
    const kept = before.every((config, at) => config === after[at] ||
      JSON.stringify(config) === JSON.stringify(after[at]));
    const historyKept = this.measured.historyKept && kept;
    const toOwner = action.type === 'move' && previous.shards[action.shard] === action.gid;
    const noOpMovesKept = this.measured.noOpMovesKept && !(toOwner && latest !== previous);
    const flags = { historyKept, noOpMovesKept };
    if (latest === previous) {
      this.measured = { ...this.measured, ...flags };
    } else if (action.type === 'move') {
      this.measured = { lastRebalance: null, ...flags, movesDone: this.measured.movesDone + 1 };
    } else {
      const lastRebalance = rememberedSummary(this.bug, previous.shards, latest, this.bugs);
      this.measured = { ...this.measured, lastRebalance, ...flags };
    }
    return body.result.type === 'refused' ? `refused: ${body.result.error}` : null;
  }

  observe(expected: ControllerModelState): ControllerModelState {
    const latest = this.configs[this.configs.length - 1]!;
    const previous = this.configs.length > 1 ? this.configs[this.configs.length - 2]! : null;
    return { ...expected, ...this.measured, latest, previous };
  }
}

export function createControllerAdapter(
  params: Params,
  bug: string | null,
  faults: Partial<ShellFaults> = {},
): RuntimeAdapter<ControllerModelState, ControllerAction> {
  return new ControllerAdapter(params, bug, faults);
}
