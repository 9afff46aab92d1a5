/**
 * The `migration` model's liveness (DESIGN §3 "Safety is not enough", issue 10 item 3):
 * every recorded configuration is eventually published, under weak fairness of the driver's
 * steps and of delivery.
 *
 * Fair (TLC's WF): PlanNext, Publish, the driver's Query(s, g) when no copy is kept, its
 * Freeze / Install / Delete of shard s when its reply arrives, and Deliver of each kept copy
 * (a client's when its reply arrives; a driver command's has only its reply-lost form, see
 * model-actions.ts), the class naming the copy itself, not its place in the bag. Not
 * fair: the admin, the clients, crashes, duplication, and every step whose reply is lost.
 * Losses are bounded without a counter: repeating a lost step changes nothing (groups answer
 * a repeat with the first answer), and a step that changes nothing is a stutter, so a
 * behaviour cannot lose replies forever instead of taking the fair step.
 */
import type { Fairness, TemporalProperty } from '../../checker/model.js';
import { latestPublished } from '../../invariants/config-history.js';
import { actionLabel, type MigrationAction } from './model-actions.js';
import type { MigrationState } from './model-state.js';

/** P ~> Q with P: a recorded configuration is not yet published; Q: the latest one is. */
export const migrationProperties: readonly TemporalProperty<MigrationState>[] = [
  {
    name: 'RecordedConfigsPublished',
    kind: 'leadsTo',
    trigger: (state) => !latestPublished(state.controller),
    holds: (state) => latestPublished(state.controller),
  },
];

export const migrationFairness: Fairness<MigrationState, MigrationAction> = {
  weakClass(action, state) {
    switch (action.type) {
      case 'PlanNext':
      case 'Publish':
        return actionLabel(action);
      case 'Query':
        return action.duplicate ? null : actionLabel(action);
      case 'Freeze':
      case 'Install':
      case 'Delete':
        return action.lost || action.duplicate ? null : actionLabel(action);
      case 'Deliver': {
        const copy = state.network[action.index];
        if (copy === undefined) return null;
        // A driver command's copy is delivered only with its reply lost (no driver waits).
        if (action.lost && copy.command.type === 'client') return null;
        return `Deliver(g${copy.to} ${JSON.stringify(copy.command)})`;
      }
      default:
        return null;
    }
  },
};
