/**
 * The `migration` model (DESIGN §3): the controller's driver, G replica groups as atomic
 * replicated state machines and C clients, composed with a network that loses replies,
 * duplicates messages and delivers the copies late, and an environment that crashes the
 * driver and changes the configuration (join / leave / move). It starts from configuration 1
 * (group 1 holds every shard), checks the eight invariants of invariants.ts and, under weak
 * fairness, the liveness property of liveness.ts.
 */
import { defineModel, integer } from '../../checker/define-model.js';
import type { Model } from '../../checker/model.js';
import { migrationBugs, type MigrationBugName } from '../../spec/migration/bugs.js';
import { migrationCodec } from './codec.js';
import { migrationVariables } from './printing.js';
import { migrationSometimes } from './sometimes.js';
import { migrationInvariants } from './invariants.js';
import { migrationFairness, migrationProperties } from './liveness.js';
import {
  actionLabel,
  allActions,
  MigrationStepper,
  type MigrationAction,
} from './model-actions.js';
import {
  initialState,
  modelBugs,
  maximumOps,
  type MigrationBounds,
  type MigrationState,
} from './model-state.js';
import { migrationDiagram } from './diagram.js';

export function createMigrationModel(
  bounds: MigrationBounds,
  bug?: MigrationBugName,
): Model<MigrationState, MigrationAction> {
  const actions = allActions(bounds);
  const stepper = new MigrationStepper(bounds, bug);
  const initial = initialState(bounds);
  return {
    name: 'migration',
    initialStates: () => [initial],
    actions: () => actions,
    next: (state, action) => stepper.next(state, action),
    label: actionLabel,
    diagram: (before, action, after) => migrationDiagram(before, action, after,
      actionLabel(action)),
    // A run may end once nothing is in flight and no migration is pending: the clients are
    // done, or wait on shards that every group left (CONTRACT: unassigned shards are served by
    // no one). A stuck migration or message is still a deadlock.
    isTerminal: (state) => state.network.length === 0 && state.controller.next === null,
    invariants: migrationInvariants(bounds),
    sometimes: migrationSometimes(bounds),
    properties: migrationProperties,
    fairness: migrationFairness,
    codec: migrationCodec(bounds),
    variables: (state) => migrationVariables(bounds, state),
  };
}

/** An integer bound: its description, default and range. */
const bound = (description: string, value: number, min: number, max: number) =>
  integer({ description, default: value, min, max });

export const migrationDefinition = defineModel({
  name: 'migration',
  description:
    'Shard migration (freeze / install / delete / publish) with driver crashes, a lossy ' +
    'duplicating network, clients and join/leave/move',
  params: {
    groups: bound('replica groups', 2, 1, 3),
    shards: bound('shards', 2, 1, 3),
    clients: bound('clients', 2, 0, 3),
    ops: bound('operations per client', 2, 0, maximumOps),
    maxReconfigs: bound('admin join/leave/move', 2, 0, 3),
    maxCrashes: bound('driver crashes', 1, 0, 3),
    maxDuplicates: bound('messages the network duplicates', 0, 0, 3),
    maxExpiries: bound('client session expiries (through the log)', 0, 0, 2),
    maxReuses: bound('clients that reuse a seq for another request', 0, 0, 3),
    partBytes: bound('image part budget (a KV entry weighs its key and value + 8, a ' +
      'dedup record 48): a larger image travels in parts', 64, 1, 2 ** 20),
  },
  bugs: migrationBugs,
  create: (bounds, bug) => createMigrationModel(bounds, bug),
});
