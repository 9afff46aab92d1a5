/**
 * The controller's known bugs (DESIGN §3's catalog), one entry each. `ControllerBugs` holds
 * the switches, all off unless named, each consulted at exactly the place its entry's comment
 * names. The `controller` model checks non-minimal-rebalance, non-minimal-by-gid-order and
 * query-answers-older; the
 * `migration` model, which runs this controller under its driver, checks skip-config.
 */
import { assertCatalog, bugNames, type BugSwitches, type KnownBug } from '../bug-catalog.js';

export const controllerBugs = [
  {
    // operations.ts rebalanceShards: Join and Leave deal the shards out afresh.
    name: 'non-minimal-rebalance',
    description: 'Join and Leave deal the shards out afresh, round robin, ignoring their holders',
    breaks: ['MinimalMoves'],
  },
  {
    // rebalance.ts targetsOf: the n mod g larger counts go to the lowest gids in sorted order
    // instead of to the groups that hold the most, so shards move that need not.
    name: 'non-minimal-by-gid-order',
    description:
      'the larger (avg + 1) shares go to the lowest gids, not to the groups holding the most',
    breaks: ['MinimalMoves'],
  },
  {
    // state-machine.ts applyPlan: the controller plans from `current` straight to the newest
    // configuration, over an in-flight `next` (seed 1: "query the next config, not the latest").
    name: 'skip-config',
    model: 'migration',
    description:
      'the controller plans from current straight to the newest configuration, over next',
    breaks: ['GarbageBound', 'UnaffectedServed'],
  },
  {
    // state-machine.ts queryConfig: a Query of an earlier configuration n answers n - 1.
    name: 'query-answers-older',
    description:
      'a Query of an earlier configuration n answers configuration n - 1 (CONTRACT: every ' +
      'historical configuration stays identical)',
    breaks: ['HistoryImmutable'],
  },
] as const satisfies readonly KnownBug[];
assertCatalog(controllerBugs, controllerBugs);

export type ControllerBugName = (typeof controllerBugs)[number]['name'];
export const controllerBugNames = bugNames(controllerBugs);

/** The switches the controller's state machine reads. */
export type ControllerBugs = BugSwitches<ControllerBugName>;

export const noControllerBugs: ControllerBugs = {};
