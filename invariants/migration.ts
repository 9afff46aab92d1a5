/**
 * The `migration` model's invariants, named as in DESIGN §3, in the order the checker tests
 * them, so that a view violating several reports the most specific one. The view is the
 * model's state as it is.
 */
import { assert } from '../spec/assert.js';
import {
  exactlyOnce,
  explainExactlyOnce,
  explainNoLostWrite,
  explainOnlyServerAnswers,
  explainReadsCurrent,
  noLostWrite,
  onlyServerAnswers,
  readsCurrent,
  type EffectsView,
  type ScriptReading,
} from './client-effects.js';
import type { NamedInvariant } from './invariant.js';
import {
  explainGarbageBound,
  explainOneImagePerIdentity,
  explainUnaffectedServed,
  garbageBound,
  oneImagePerIdentity,
  unaffectedServed,
  type ImagesView,
} from './migration-moves.js';
import { atMostOneServer, explainAtMostOneServer } from './shard-servers.js';

export type MigrationView = EffectsView & ImagesView;

export const migrationInvariantNames = [
  'AtMostOneServer',
  'OnlyServerAnswers',
  'NoLostWrite',
  'ReadsCurrent',
  'ExactlyOnce',
  'OneImagePerIdentity',
  'UnaffectedServed',
  'GarbageBound',
] as const;

export function migrationInvariants(script: ScriptReading): NamedInvariant<MigrationView>[] {
  const invariants: NamedInvariant<MigrationView>[] = [
    {
      name: 'AtMostOneServer',
      holds: (view) => atMostOneServer(view.groups),
      explain: (view) => explainAtMostOneServer(view.groups),
    },
    { name: 'OnlyServerAnswers', holds: onlyServerAnswers, explain: explainOnlyServerAnswers },
    {
      name: 'NoLostWrite',
      holds: (view) => noLostWrite(script, view),
      explain: (view) => explainNoLostWrite(script, view),
    },
    {
      name: 'ReadsCurrent',
      holds: readsCurrent,
      explain: (view) => explainReadsCurrent(script, view),
    },
    {
      name: 'ExactlyOnce',
      holds: (view) => exactlyOnce(script, view),
      explain: (view) => explainExactlyOnce(script, view),
    },
    {
      name: 'OneImagePerIdentity',
      holds: oneImagePerIdentity,
      explain: explainOneImagePerIdentity,
    },
    { name: 'UnaffectedServed', holds: unaffectedServed, explain: explainUnaffectedServed },
    { name: 'GarbageBound', holds: garbageBound, explain: explainGarbageBound },
  ];
  const names = invariants.map((invariant) => invariant.name);
  assert(names.join() === migrationInvariantNames.join(), 'migration invariants out of order');
  return invariants;
}
