/**
 * The `migration` model's invariants: the library's (invariants/migration.ts), read on the
 * model's state, which is the library's view as it is (groups, controller, driver, network,
 * clients and the proof-only history), so the checker's hot loop builds nothing. What the
 * library needs to know of the model's clients is their fixed script and the one key of each
 * shard.
 */
import type { Invariant } from '../../checker/model.js';
import type { ScriptReading } from '../../invariants/client-effects.js';
import { migrationInvariants as libraryInvariants } from '../../invariants/migration.js';
import { keyOf, scriptRequest, type MigrationBounds, type MigrationState } from './model-state.js';

function modelScript(bounds: MigrationBounds): ScriptReading {
  return {
    shards: bounds.shards,
    clients: bounds.clients,
    ops: bounds.ops,
    keyOf: (shard) => keyOf(shard, bounds.shards),
    requestOf: (client, seq, reused) => scriptRequest(bounds, client, seq, reused),
  };
}

export function migrationInvariants(bounds: MigrationBounds): Invariant<MigrationState>[] {
  return libraryInvariants(modelScript(bounds));
}
