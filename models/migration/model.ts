/**
 * The `migration` model (DESIGN §3): the controller's driver, G replica groups as atomic
 * replicated state machines and C clients, composed with a network that loses replies,
 * duplicates messages and delivers the copies late, and an environment that crashes the
 * driver and changes the configuration (join / leave / move). It starts from configuration 1
 * (group 1 holds every shard), checks the eight invariants of invariants.ts and, under weak
 * fairness, the liveness property of liveness.ts.
 */
import type {
  BugSpec,
  Model,
  ModelDefinition,
  Params,
  ParamSpec,
} from '../../checker/model.js';
import { migrationBugNames, type MigrationBugName } from '../../spec/migration/bugs.js';
import { migrationCodec } from './codec.js';
import { migrationVariables } from './printing.js';
import { invariantNames, migrationInvariants } from './invariants.js';
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
    // A run may end once nothing is in flight and no migration is pending: the clients are
    // done, or wait on shards that every group left (CONTRACT: unassigned shards are served by
    // no one). A stuck migration or message is still a deadlock.
    isTerminal: (state) => state.network.length === 0 && state.controller.next === null,
    invariants: migrationInvariants(bounds),
    properties: migrationProperties,
    fairness: migrationFairness,
    codec: migrationCodec(bounds),
    variables: (state) => migrationVariables(bounds, state),
  };
}

export const migrationBugSpecs: readonly BugSpec[] = [
  {
    name: 'skip-freeze',
    description: 'src hands out its image for install at dst without freezing the shard',
    breaks: ['AtMostOneServer', 'NoLostWrite', 'ExactlyOnce', 'ReadsCurrent'],
  },
  {
    name: 'unfreeze-on-recovery',
    description: 'a recovering driver unfreezes src because current still names it',
    breaks: ['AtMostOneServer', 'NoLostWrite', 'ExactlyOnce', 'ReadsCurrent'],
  },
  {
    name: 'reinstall-overwrites',
    description: "a repeated Install overwrites what dst has served since the first one",
    breaks: ['NoLostWrite'],
    bounds: { 'max-duplicates': 1 },
  },
  {
    name: 'delete-before-receipt',
    description:
      "the driver deletes at src as soon as it holds the image, with a receipt it made up",
    breaks: ['NoLostWrite', 'UnaffectedServed'],
  },
  {
    name: 'accept-stale-epoch',
    description: 'groups act on freeze/install/delete messages of an older epoch',
    breaks: ['GarbageBound', 'UnaffectedServed'],
    bounds: { clients: 1, ops: 1, 'max-duplicates': 1 },
  },
  {
    name: 'skip-config',
    description:
      'the controller plans from current straight to the newest configuration, over next',
    breaks: ['GarbageBound', 'UnaffectedServed'],
  },
  {
    name: 'dedup-not-migrated',
    description: 'the image carries the KV data but not the dedup table',
    breaks: ['ExactlyOnce'],
  },
  {
    name: 'expiry-forgets-session',
    description:
      "session expiry drops a client's dedup records but keeps serving the client, so a late " +
      'duplicate of its last request is applied again',
    breaks: ['ExactlyOnce'],
    bounds: { 'max-expiries': 1 },
  },
  {
    name: 'frozen-source-serves-reads',
    description: 'a frozen source keeps answering Gets from its fixed copy',
    breaks: ['OnlyServerAnswers', 'ExactlyOnce', 'ReadsCurrent'],
  },
  {
    name: 'install-accepts-different-image',
    description:
      'dst, having installed the shard for an identity, installs another image for it ' +
      '(checked behind recovery-needs-source-after-delete and migrate-returns-empty-after-gc)',
    // OneImagePerIdentity fails in its context already; the other three only with its switch.
    breaks: ['OneImagePerIdentity', 'NoLostWrite', 'ExactlyOnce', 'ReadsCurrent'],
  },
  {
    name: 'dedup-ignores-digest',
    description:
      'a request reusing a (client, seq) with another request gets the first result ' +
      'instead of identity-conflict',
    breaks: ['ExactlyOnce'],
    bounds: { 'max-reuses': 1 },
  },
  {
    name: 'migrate-returns-empty-after-gc',
    description:
      'a source asked for a shard it deleted answers with an empty image instead of ' +
      'refusing (checked behind recovery-needs-source-after-delete, the driver that asks)',
    breaks: ['OneImagePerIdentity'],
  },
  {
    name: 'recovery-needs-source-after-delete',
    description:
      'a recovering driver asks src for its image even after src deleted the shard: the ' +
      'migration never finishes (found by liveness)',
    breaks: ['RecordedConfigsPublished'],
  },
];

function integerParam(
  name: string,
  description: string,
  defaultValue: number,
  min: number,
  max: number,
): ParamSpec {
  return { name, description, default: defaultValue, kind: 'integer', min, max };
}

function boundsOf(params: Params): MigrationBounds {
  return {
    groups: params['groups'] as number,
    shards: params['shards'] as number,
    clients: params['clients'] as number,
    ops: params['ops'] as number,
    maxReconfigs: params['max-reconfigs'] as number,
    maxCrashes: params['max-crashes'] as number,
    maxDuplicates: params['max-duplicates'] as number,
    maxExpiries: params['max-expiries'] as number,
    maxReuses: params['max-reuses'] as number,
  };
}

export const migrationDefinition: ModelDefinition = {
  name: 'migration',
  description:
    'Shard migration (freeze / install / delete / publish) with driver crashes, a lossy ' +
    'duplicating network, clients and join/leave/move',
  params: [
    integerParam('groups', 'replica groups', 2, 1, 3),
    integerParam('shards', 'shards', 2, 1, 3),
    integerParam('clients', 'clients', 2, 0, 3),
    integerParam('ops', 'operations per client', 2, 0, maximumOps),
    integerParam('max-reconfigs', 'admin join/leave/move', 2, 0, 3),
    integerParam('max-crashes', 'driver crashes', 1, 0, 3),
    integerParam('max-duplicates', 'messages the network duplicates', 0, 0, 3),
    integerParam('max-expiries', 'client session expiries (through the log)', 0, 0, 2),
    integerParam('max-reuses', 'clients that reuse a seq for another request', 0, 0, 3),
  ],
  invariants: [...invariantNames],
  bugs: migrationBugSpecs,
  create: (params, bug) => {
    if (bug !== undefined && !migrationBugNames.includes(bug as MigrationBugName)) {
      throw new Error(`migration has no bug '${bug}'`);
    }
    return createMigrationModel(boundsOf(params), bug as MigrationBugName | undefined) as never;
  },
};
