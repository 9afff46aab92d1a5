/**
 * The migration model's `sometimes` properties (checker/model.ts): a write takes effect, a
 * Get is answered, a shard moves to another group with data in it, an image too large for
 * one part is staged whole at dst. Each is declared only where the bounds allow it.
 */
import type { Invariant } from '../../checker/model.js';
import { dedupRecordBytes } from '../../spec/group/image-cut.js';
import { scriptRequest, type MigrationBounds, type MigrationState } from './model-state.js';

/** Whether some client's script holds a Get within the bounds. */
function scriptHasGet(bounds: MigrationBounds): boolean {
  for (let client = 0; client < bounds.clients; client++) {
    for (let seq = 0; seq < bounds.ops; seq++) {
      if (scriptRequest(bounds, client, seq).op === 'get') return true;
    }
  }
  return false;
}

export function migrationSometimes(bounds: MigrationBounds): Invariant<MigrationState>[] {
  const properties: Invariant<MigrationState>[] = [];
  if (bounds.clients === 0 || bounds.ops === 0) return properties;
  properties.push({
    name: 'WriteApplied',
    holds: (state) => state.history.ghost.some((value) => value.length > 0),
  });
  if (scriptHasGet(bounds)) {
    properties.push({
      name: 'ReadServed',
      holds: (state) =>
        state.clients.some((client, index) =>
          client.results.some((_, seq) => scriptRequest(bounds, index, seq).op === 'get'),
        ),
    });
  }
  if (bounds.groups > 1 && bounds.maxReconfigs > 0) {
    properties.push({
      name: 'ShardMovedWithData',
      holds: (state) =>
        state.groups.some((group) =>
          group.shards.some((shard) => shard.receipt !== null && shard.kv.size > 0),
        ),
    });
  }
  // Two clients' writes leave two dedup records in shard 0: more than one part can hold.
  const twoParts = bounds.clients >= 2 && bounds.partBytes < 2 * dedupRecordBytes;
  if (bounds.groups > 1 && bounds.maxReconfigs > 0 && twoParts) {
    properties.push({
      name: 'ImageStagedInParts',
      holds: (state) =>
        state.groups.some((group) =>
          group.shards.some((shard) =>
            shard.staged !== null && shard.staged.parts === shard.staged.manifest.count),
        ),
    });
  }
  return properties;
}
