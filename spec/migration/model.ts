/**
 * The `migration` model (DESIGN §3): the controller's driver, G replica groups as atomic
 * replicated state machines and C clients, composed with a network that loses replies,
 * duplicates messages and delivers the copies late, and an environment that crashes the
 * driver and changes the configuration (join / leave / move). It starts from configuration 1
 * (group 1 holds every shard) and checks the seven invariants of invariants.ts.
 */
import type { BugSpec, Model, ModelDefinition, Params } from '../../checker/model.js';
import { migrationBugs, type MigrationBug } from '../shardkv/types.js';
import { migrationCodec } from './codec.js';
import { invariantNames, migrationInvariants } from './invariants.js';
import { actionLabel, allActions, MigrationStepper, type MigrationAction } from './model-actions.js';
import { initialState, maximumOps, type MigrationBounds, type MigrationState } from './model-state.js';

export function createMigrationModel(
  bounds: MigrationBounds,
  bug?: MigrationBug,
): Model<MigrationState, MigrationAction> {
  const actions = allActions(bounds, bug);
  const stepper = new MigrationStepper(bounds, bug);
  const initial = initialState(bounds);
  return {
    name: 'migration',
    initialStates: () => [initial],
    actions: () => actions,
    next: (state, action) => stepper.next(state, action),
    label: actionLabel,
    invariants: migrationInvariants(bounds),
    codec: migrationCodec(bounds),
    variables: (state) => ({ ...state }),
  };
}

export const migrationBugSpecs: readonly BugSpec[] = [
  {
    name: 'skip-freeze',
    description: 'src hands out its image for install at dst without freezing the shard',
    breaks: ['AtMostOneServer'],
  },
  {
    name: 'unfreeze-on-recovery',
    description: 'a recovering driver unfreezes src because current still names it',
    breaks: ['AtMostOneServer'],
  },
  {
    name: 'reinstall-overwrites',
    description: "a repeated Install overwrites what dst has served since the first one",
    breaks: ['NoLostWrite'],
  },
  {
    name: 'delete-before-receipt',
    description: "the driver deletes at src as soon as it holds the image, before dst's receipt",
    breaks: ['NoLostWrite'],
  },
  {
    name: 'accept-stale-epoch',
    description: 'groups act on freeze/install/delete messages of an older epoch',
    breaks: ['StaleRejected', 'NoLostWrite'],
  },
  {
    name: 'skip-config',
    description: 'the driver plans from current straight to the newest configuration, abandoning next',
    breaks: ['ConfigsInOrder', 'NoLostWrite', 'AtMostOneServer'],
  },
  {
    name: 'dedup-not-migrated',
    description: 'the image carries the KV data but not the dedup table',
    breaks: ['ExactlyOnce'],
  },
];

function boundsOf(params: Params): MigrationBounds {
  return {
    groups: params['groups'] as number,
    shards: params['shards'] as number,
    clients: params['clients'] as number,
    ops: params['ops'] as number,
    maxReconfigs: params['max-reconfigs'] as number,
    maxCrashes: params['max-crashes'] as number,
    maxDuplicates: params['max-duplicates'] as number,
  };
}

export const migrationDefinition: ModelDefinition = {
  name: 'migration',
  description:
    'Shard migration (freeze / install / delete / publish) with driver crashes, a lossy ' +
    'duplicating network, clients and join/leave/move',
  params: [
    { name: 'groups', description: 'replica groups', default: 2, kind: 'integer', min: 1, max: 3 },
    { name: 'shards', description: 'shards', default: 2, kind: 'integer', min: 1, max: 3 },
    { name: 'clients', description: 'clients', default: 2, kind: 'integer', min: 0, max: 3 },
    { name: 'ops', description: 'operations per client', default: 2, kind: 'integer', min: 0, max: maximumOps },
    { name: 'max-reconfigs', description: 'admin join/leave/move', default: 2, kind: 'integer', min: 0, max: 3 },
    { name: 'max-crashes', description: 'driver crashes', default: 1, kind: 'integer', min: 0, max: 3 },
    { name: 'max-duplicates', description: 'messages the network duplicates', default: 1, kind: 'integer', min: 0, max: 3 },
  ],
  invariants: [...invariantNames],
  bugs: migrationBugSpecs,
  create: (params, bug) => {
    if (bug !== undefined && !migrationBugs.includes(bug as MigrationBug)) {
      throw new Error(`migration has no bug '${bug}'`);
    }
    return createMigrationModel(boundsOf(params), bug as MigrationBug | undefined) as never;
  },
};
