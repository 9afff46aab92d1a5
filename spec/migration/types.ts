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
  GroupCommand, Image, ImageDelta, ImagePart, PartsManifest, Receipt, ShardFacts,
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
  /**
   * Pre-copy: src is asked to pin the shard as it is while it goes on serving; a base larger
   * than one part is then staged at dst before the freeze (image-delta.ts).
   */
  | { readonly step: 'precopy' }
  /** `precopied`: the manifest of the base dst acknowledged whole, when the driver saw it. */
  | { readonly step: 'freeze'; readonly precopied?: PartsManifest }
  /** image null: the shard was never held; dst starts it empty. */
  | { readonly step: 'install'; readonly image: Image | null }
  /**
   * An image too large for one part (image-parts.ts): dst has acknowledged the first
   * `acknowledged` parts; the window after them is fetched from src and staged at dst, then,
   * once all are, install-parts. parts[i]: part i as fetched, null while it is not (or once
   * dst acknowledged it: it is not needed again). For a pre-copy base (manifest.precopy),
   * `delta` is null before the freeze (once all are staged, the driver freezes) and the
   * freeze's delta after it (once all are staged, install-parts carries it).
   */
  | {
      readonly step: 'stage';
      readonly manifest: PartsManifest;
      readonly parts: readonly (ImagePart | null)[];
      readonly acknowledged: number;
      /** Left out when none. */
      readonly delta?: ImageDelta;
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
