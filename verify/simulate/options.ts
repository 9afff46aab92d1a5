/**
 * What one simulated run is made of (DESIGN §5, issue 12): the cluster's shape, the length of
 * the run, the faults it may inject and the catalog bug it runs with. Everything else about a
 * run (which client does what, when a server crashes, which frames are lost) is drawn from the
 * seed, so `seed` plus these options name one run exactly.
 */
import { assert } from '../../spec/assert.js';
import type { ClusterLayout } from '../../impl/node/api.js';

/** none: a reliable network and no crash; crash: crashes and restarts; net: partitions and an
 * unreliable network (drops, duplicates, long delays); all: both. */
export type FaultMode = 'none' | 'crash' | 'net' | 'all';

export const faultModes: readonly FaultMode[] = ['none', 'crash', 'net', 'all'];

export interface SimulationOptions {
  readonly seed: number;
  /**
   * Events of the active phase: clock events (timers, frame deliveries, disk syncs) during
   * which clients, the administrator and the fault injector act. A quiet phase follows.
   */
  readonly steps: number;
  /** Simulated milliseconds after which the active phase ends even before `steps` events. */
  readonly activeTimeMsMax: number;
  readonly faults: FaultMode;
  /** A catalog bug name (`shardkv bugs`), or null for the correct code. */
  readonly bug: string | null;
  readonly clients: number;
  /** gids of the replica groups (CONTRACT: 100, 101, ...). */
  readonly gids: readonly number[];
  readonly serversPerGroup: number;
  readonly controllers: number;
  readonly shardCount: number;
  /** Keys the clients use; their first letters spread them over the shards. */
  readonly keys: readonly string[];
  /** Written values are padded to this many bytes (large-values.ts); 0: bare tokens. */
  readonly valueBytes: number;
  /** Keep every event line (for diffs and traces); otherwise only the digest and the tail. */
  readonly keepEventLines: boolean;
  /** Record every server's actor steps (impl/trace) for `shardkv conform`. */
  readonly trace: boolean;
}

export const defaultSteps = 10_000;

export const defaultOptions: Omit<SimulationOptions, 'seed'> = {
  steps: defaultSteps,
  activeTimeMsMax: Number.POSITIVE_INFINITY,
  faults: 'all',
  bug: null,
  clients: 10,
  gids: [100, 101, 102],
  serversPerGroup: 3,
  controllers: 3,
  shardCount: 10,
  // First bytes 'a'..'f' are 97..102: shards 7, 8, 9, 0, 1, 2 of 10.
  keys: ['a', 'b', 'c', 'd', 'e', 'f'],
  valueBytes: 0,
  keepEventLines: false,
  trace: false,
};

export function simulationOptions(
  seed: number,
  overrides: Partial<Omit<SimulationOptions, 'seed'>> = {},
): SimulationOptions {
  const options = { ...defaultOptions, ...overrides, seed };
  assert(Number.isSafeInteger(seed) && seed >= 0, `seed ${seed}`);
  assert(Number.isSafeInteger(options.steps) && options.steps > 0, `steps ${options.steps}`);
  assert(options.clients >= 1 && options.gids.length >= 1, 'a run needs clients and groups');
  assert(options.keys.length >= 1, 'a run needs keys');
  return options;
}

/** CONTRACT's names: `ctl-0..C-1`, `g<gid>-0..N-1`. */
export function clusterLayout(options: SimulationOptions): ClusterLayout {
  const controllers = Array.from({ length: options.controllers }, (_, index) => `ctl-${index}`);
  const groups: Record<number, readonly string[]> = {};
  for (const gid of options.gids) {
    const servers = options.serversPerGroup;
    groups[gid] = Array.from({ length: servers }, (_, index) => `g${gid}-${index}`);
  }
  return { shardCount: options.shardCount, controllers, groups };
}

/** Every server of the layout, controllers first, in layout order. */
export function serverNames(layout: ClusterLayout): string[] {
  return [...layout.controllers, ...Object.values(layout.groups).flat()];
}
