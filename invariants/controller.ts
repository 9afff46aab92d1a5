/**
 * The `controller` model's invariants, in the order the checker tests them, over a view of
 * the latest configuration and the measurements of the step that made it: the model's state
 * is that view as it is (it keeps only the latest configuration, and the step's measurements
 * as history variables, since MinimalMoves, Deterministic and HistoryImmutable relate the
 * configuration before a step to the one after).
 */
import type { Config } from '../spec/controller/types.js';
import {
  explainBalanced,
  explainValidConfig,
  isBalanced,
  isFullyAssigned,
  isValidConfig,
} from './controller-configs.js';
import type { NamedInvariant } from './invariant.js';

/** What the Join or Leave that made the latest configuration did, measured at that step. */
export interface RebalanceSummary {
  /** Shards whose gid changed. */
  readonly moved: number;
  /** The lower bound on that number (`minimumMoves` of the configuration before). */
  readonly minimum: number;
  /** Rebalancing the configuration before with the gids in other orders gave the same. */
  readonly orderIndependent: boolean;
}

export interface ControllerView {
  readonly latest: Config;
  /** History: the step that made `latest`, when it was a Join or Leave. */
  readonly lastRebalance: RebalanceSummary | null;
  /**
   * History: every step so far kept the earlier configurations unchanged (keepsHistory) and
   * every Query answered the one held at its number (queryAnswersHistory).
   */
  readonly historyKept: boolean;
  /** History: no Move to a shard's owner made a configuration (CONTRACT: it makes none). */
  readonly noOpMovesKept: boolean;
}

export const controllerInvariantNames = [
  'ValidConfig',
  'Balanced',
  'MinimalMoves',
  'Deterministic',
  'HistoryImmutable',
  'MoveToOwnerNoOp',
] as const;

/** A property of a Join's or Leave's rebalance; a Move (no summary) rebalances nothing. */
const rebalanced = (view: ControllerView, holds: (summary: RebalanceSummary) => boolean) =>
  view.lastRebalance === null || holds(view.lastRebalance);

export function controllerInvariants(shardCount: number): NamedInvariant<ControllerView>[] {
  return [
    {
      name: 'ValidConfig',
      holds: (view) => isValidConfig(view.latest, shardCount),
      explain: (view) => explainValidConfig(view.latest, shardCount),
    },
    {
      name: 'Balanced',
      holds: (view) =>
        isFullyAssigned(view.latest) && rebalanced(view, () => isBalanced(view.latest)),
      explain: (view) => explainBalanced(view.latest),
    },
    {
      name: 'MinimalMoves',
      holds: (view) => rebalanced(view, (summary) => summary.moved === summary.minimum),
      explain: (view) =>
        `configuration ${view.latest.num} moved ${view.lastRebalance?.moved} shards, ` +
        `the lower bound is ${view.lastRebalance?.minimum}`,
    },
    {
      name: 'Deterministic',
      holds: (view) => rebalanced(view, (summary) => summary.orderIndependent),
      explain: (view) =>
        `configuration ${view.latest.num} changes when its gids are listed in another order`,
    },
    {
      name: 'HistoryImmutable',
      holds: (view) => view.historyKept,
      explain: () => 'a step changed or dropped an earlier configuration, or a Query ' +
        'answered another configuration than the one held at its number',
    },
    {
      name: 'MoveToOwnerNoOp',
      holds: (view) => view.noOpMovesKept,
      explain: () => 'a Move of a shard to the group that owns it made a configuration',
    },
  ];
}
