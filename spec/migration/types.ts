/**
 * The migration driver's data (DESIGN §3). The controller group's leader drives every
 * reconfiguration N -> N+1; what it persists (through the controller's Raft log) is the
 * configuration history, the published configuration `current` and the intent `next`. What
 * it merely believes (the progress of each moved shard) is volatile: a new driver rebuilds it
 * from `next` and from the facts the groups report, never from the old driver's beliefs.
 */
import type { Config, Gid } from '../controller/types.js';
import type { GroupCommand, Identity, Image, Receipt } from '../group/types.js';

/** The persisted intent of a configuration change: one identity per moved shard. */
export interface Intent {
  readonly num: number;
  /** Sorted by shard. */
  readonly moves: readonly Identity[];
}

/** The controller's persisted state, as far as migration is concerned. */
export interface ControllerState {
  /** configs[n].num === n; never rewritten (HistoryImmutable). */
  readonly configs: readonly Config[];
  /** The published configuration: every shard is served by its owner in configs[current]. */
  readonly current: number;
  readonly next: Intent | null;
}

/** The driver's belief about one moved shard: the step it takes next. */
export type ShardProgress =
  /** After a restart: the facts have not been read yet. */
  | { readonly step: 'recover' }
  | { readonly step: 'freeze' }
  | { readonly step: 'install'; readonly image: Image }
  | { readonly step: 'delete'; readonly receipt: Receipt }
  | { readonly step: 'done' };

/** The driver's volatile state: progress[i] belongs to next.moves[i]; empty with no next. */
export interface DriverState {
  readonly progress: readonly ShardProgress[];
}

/** A command for one group: what the driver asks the network to deliver. */
export interface Send {
  readonly to: Gid;
  readonly command: GroupCommand;
}
