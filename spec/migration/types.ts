/**
 * The migration driver's data (DESIGN §3). The controller group's leader drives every
 * reconfiguration N -> N+1; what it persists (through the controller's Raft log: the
 * controller state machine's `plan` and `publish`) is the configuration history, the
 * published configuration `current` and the intent `next`. What it merely believes (the
 * progress of each moved shard) is volatile: a new driver rebuilds it from `next` and from the
 * facts the groups report, never from the old driver's beliefs.
 */
import type { Gid } from '../controller/types.js';
import type {
  GroupCommand, Image, ImagePart, PartsManifest, Receipt, ShardFacts,
} from '../group/types.js';

/** The driver's belief about one moved shard: the step it takes next. */
export type ShardProgress =
  /**
   * After a restart, or once `next` is another intent: the facts src and dst reported so far
   * (null: not yet; a gid 0 reports none). Once both are in, recovery picks the step.
   */
  | {
      readonly step: 'recover';
      readonly srcFacts: ShardFacts | null;
      readonly dstFacts: ShardFacts | null;
    }
  | { readonly step: 'freeze' }
  /** image null: the shard was never held; dst starts it empty. */
  | { readonly step: 'install'; readonly image: Image | null }
  /**
   * An image too large for one part (image-parts.ts): dst has acknowledged the first
   * `acknowledged` parts; the window after them is fetched from src and staged at dst, then,
   * once all are, install-parts. parts[i]: part i as fetched, null while it is not (or once
   * dst acknowledged it: it is not needed again).
   */
  | {
      readonly step: 'stage';
      readonly manifest: PartsManifest;
      readonly parts: readonly (ImagePart | null)[];
      readonly acknowledged: number;
    }
  | { readonly step: 'delete'; readonly receipt: Receipt }
  | { readonly step: 'done' };

/**
 * The driver's volatile state: beliefs about the intent numbered `num` (null: none), where
 * progress[i] belongs to next.moves[i]. Beliefs about another intent than the controller's
 * `next` are stale: the step function drops them and recovers from the facts.
 */
export interface DriverState {
  readonly num: number | null;
  readonly progress: readonly ShardProgress[];
}

/** A driver with no beliefs (no intent in flight). */
export const idleDriver: DriverState = { num: null, progress: [] };

/** A command for one group: what the driver asks the network to deliver. */
export interface Send {
  readonly to: Gid;
  readonly command: GroupCommand;
}
