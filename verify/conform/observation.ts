/**
 * What the per-node replay hands to the global checks: per record, the facts the global
 * invariants read (who leads which term, which entry applied at which index, which shards a
 * group's applied state serves), tagged with the record's place in the node's order and its
 * Lamport clock.
 */
import type { ShardView } from '../../invariants/shard-view.js';

export interface Place {
  readonly node: string;
  readonly seq: number;
  readonly lamport: number;
}

export type Observation = Place & (
  | { readonly kind: 'leader'; readonly group: string; readonly term: number }
  | {
      readonly kind: 'applied'; readonly group: string; readonly index: number;
      readonly term: number; readonly commandDigest: string;
    }
  | {
      readonly kind: 'served'; readonly gid: number; readonly appliedIndex: number;
      /** The group's record of each shard (its phase and last identity), as applied there. */
      readonly shards: readonly ShardView[];
    }
  | {
      /** A replica's whole applied state at `index`, by digest (ReplicaAgreement). */
      readonly kind: 'state'; readonly group: string; readonly index: number;
      readonly digest: string;
    }
  | {
      readonly kind: 'intent'; readonly current: number;
      /** The number of the configuration in flight, or null. */
      readonly next: number | null;
    }
);

/** A Raft group's name: `ctl` for the controller group, `g<gid>` for a replica group. */
export function groupName(gid: number | null): string {
  return gid === null ? 'ctl' : `g${gid}`;
}
