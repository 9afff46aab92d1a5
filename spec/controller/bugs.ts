/**
 * The controller's known bugs (DESIGN §3's catalog), as one record of switches, all off by
 * default, each consulted at exactly one place, the one its comment names. The `controller`
 * model explores non-minimal-rebalance and non-minimal-by-gid-order; the `migration` model,
 * which runs this controller, explores skip-config.
 */

export interface ControllerBugs {
  /** operations.ts rebalanceShards: Join and Leave deal the shards out afresh. */
  readonly 'non-minimal-rebalance': boolean;
  /**
   * rebalance.ts targetsOf: the n mod g larger counts go to the lowest gids in sorted order
   * instead of to the groups that hold the most, so shards move that need not.
   */
  readonly 'non-minimal-by-gid-order': boolean;
  /**
   * state-machine.ts applyPlan: the controller plans from `current` straight to the newest
   * configuration, over an in-flight `next` (seed 1: "query the next config, not the latest").
   */
  readonly 'skip-config': boolean;
}

export const noControllerBugs: ControllerBugs = {
  'non-minimal-rebalance': false,
  'non-minimal-by-gid-order': false,
  'skip-config': false,
};
