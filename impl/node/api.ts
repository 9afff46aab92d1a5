/**
 * What the node shell offers (DESIGN §2 and §5): a server runs one Raft replica (a controller
 * replica or a replica of one group) whose every state change is a call of a spec function,
 * over injected I/O: the simulator passes simulated adapters (impl/sim), the processes real
 * ones (impl/net, impl/real). The clerk (impl/clerk) is the client side of the same wire
 * protocol. This file is the contract between the shell, the simulator and the cluster.
 */
import type { Config, ControllerBugs, ControllerState, Gid } from '../../spec/controller/index.js';
import type { GroupState } from '../../spec/group/index.js';
import type { MigrationBugs } from '../../spec/migration/index.js';
import type { RaftBugs } from '../../spec/raft/bugs.js';
import type { RaftNode } from '../../spec/raft/types.js';
import type { Clock, Timers } from '../io/clock.js';
import type { Random } from '../io/random.js';
import type { Transport } from '../io/transport.js';
import type { TraceSink } from '../trace/trace-sink.js';
import type { ShellFaults } from './shell-faults.js';
import type { FileSystem } from '../wal/file-system.js';

/** Every node of a cluster by name (CONTRACT: `ctl-0..C-1`, `g<gid>-0..N-1`). */
export interface ClusterLayout {
  readonly shardCount: number;
  /** The controller group's servers; a server's Raft id is its position here. */
  readonly controllers: readonly string[];
  /** gid -> that group's servers, in order (a configuration's server list). */
  readonly groups: Readonly<Record<number, readonly string[]>>;
}

/** The I/O one server runs on. */
export interface ServerEnvironment {
  readonly transport: Transport;
  readonly fileSystem: FileSystem;
  /** The server's own directory on `fileSystem` (its WAL and snapshot). */
  readonly directory: string;
  readonly clock: Clock;
  readonly timers: Timers;
  /** Draws the randomised election timeouts. */
  readonly random: Random;
  /** One line per notable event (recoveries, refused frames); never protocol decisions. */
  readonly log: (line: string) => void;
  /**
   * Lets timers and I/O run in the middle of long work (the real runtime: setImmediate). With
   * it, a snapshot is serialised and written in the background, between pauses, before the
   * step that takes it (issue 27: a big snapshot does not hold back heartbeats). Without it
   * (the simulator, whose schedule it would change), the step that takes a snapshot
   * serialises and writes it.
   */
  readonly pause?: () => Promise<void>;
}

export interface ServerTuning {
  /** An election timeout is drawn uniformly from [min, max] milliseconds. */
  readonly electionTimeoutMs: readonly [number, number];
  readonly heartbeatIntervalMs: number;
  /** Snapshot and compact once the log holds more bytes (CONTRACT --max-raft-state); null never. */
  readonly maxRaftStateBytes: number | null;
  readonly maxEntriesPerAppend: number;
  /** Bytes of entries per append (spec RaftOptions.maxBytesPerAppend); null: no bound. */
  readonly maxBytesPerAppend?: number | null;
  /** Flow control: appends in flight per follower (RaftOptions.maxInflightAppends); 0 none. */
  readonly maxInflightAppends?: number;
  /** ... and their bytes (RaftOptions.maxInflightBytes); null: no bound. */
  readonly maxInflightBytes?: number | null;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
  /** The migration driver resends what its beliefs call for this often (its `tick`). */
  readonly driverRetryMs: number;
  /**
   * The image part budget (spec/group/image-cut.ts), in the group's size policy: a source
   * answers the freeze of a larger image with its manifest, and the driver fetches it in
   * parts of at most this weight and stages each at dst as one log entry.
   */
  readonly imagePartBytes: number;
  /** How many of those parts the driver has out at once (image-parts.ts partsInFlightMax). */
  readonly imagePartsInFlight: number;
  /**
   * Gets through ReadIndex (dissertation §6.4: no log entry, no dedup record) or, when false,
   * through the log like every other request, applied at one index as the migration model's
   * Get is (`replay --runtime`); either way a get leaves no dedup record.
   */
  readonly readIndexReads?: boolean;
  /**
   * Client commands that arrive while the leader's own append syncs wait and form the next
   * batch (default true: one log copy and one sync for many). Off, each is proposed at once
   * (`replay --runtime`: the model appends whenever a client asks).
   */
  readonly batchDuringAppendSync?: boolean;
  /**
   * A read's confirmation round asks only a quorum's followers (spec RaftOptions
   * readRoundToQuorum; default false). Node processes run it (impl/process/node-run.ts); the
   * simulator, mbt and the replays do not yet, since it moves the seeds and schedules their
   * tests pin (test/sim/bug-seeds.ts, traces/catalog-matrix.json).
   */
  readonly readRoundToQuorum?: boolean;
  /** A key/value request with a longer key (UTF-8 bytes) is refused (CONTRACT: 1,024). */
  readonly maxKeyBytes?: number;
  /** ... or a longer value (CONTRACT: 1 MiB, `cluster start --max-value-bytes`). */
  readonly maxValueBytes?: number;
}

/** Catalog switches inside a running server (`shardkv simulate --bug NAME`). */
export interface ServerBugs {
  readonly raft?: RaftBugs;
  readonly controller?: Partial<ControllerBugs>;
  readonly migration?: Partial<MigrationBugs>;
  /** Faults planted in the shell itself (tests of `shardkv mbt` only). */
  readonly shell?: Partial<ShellFaults>;
}

/**
 * One Raft step of a node (`onStep`: mbt's raft adapter, tests): the spec's input and effects
 * as the step took and returned them (immutable values; maps are the runtime's B+ trees).
 */
export interface StepRecord {
  readonly node: string;
  /** 1, 2, ... per incarnation of the node; 0 is the restart from storage. */
  readonly step: number;
  readonly input: unknown;
  readonly effects: readonly unknown[];
}

export interface ServerOptions {
  readonly name: string;
  readonly layout: ClusterLayout;
  readonly environment: ServerEnvironment;
  readonly tuning?: Partial<ServerTuning>;
  readonly bugs?: ServerBugs;
  /** May `from` issue join / leave / move? (CONTRACT: a client connection may not.) */
  readonly isAdmin: (from: string) => boolean;
  readonly onStep?: (record: StepRecord) => void;
  /** Runtime tracing (impl/trace, `--trace`): every actor step goes to this sink. */
  readonly trace?: TraceSink;
  /**
   * A step or an effect threw (a bug in spec/ or the shell): the server has crashed itself and
   * logged the stack; the simulator reports it as a failure.
   */
  readonly onFatal?: (error: unknown) => void;
}

export type ServerRole = 'leader' | 'follower' | 'candidate';

/** What `cluster status` reports of a live node (CONTRACT). */
export interface ServerStatus {
  readonly name: string;
  /** A pre-candidate reports `candidate`. */
  readonly role: ServerRole;
  readonly term: number;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly logBytes: number;
  readonly snapshotBytes: number;
  /** Shards the applied group state serves; [] for a controller. */
  readonly shards: readonly number[];
}

/** A server's state as the simulator's invariants read it (never changed through this). */
export type ServerView =
  | {
      readonly kind: 'controller';
      readonly name: string;
      readonly raft: RaftNode<unknown, unknown>;
      readonly appliedIndex: number;
      readonly state: ControllerState;
    }
  | {
      readonly kind: 'group';
      readonly name: string;
      readonly gid: Gid;
      readonly raft: RaftNode<unknown, unknown>;
      readonly appliedIndex: number;
      readonly state: GroupState;
    };

export interface Server {
  readonly name: string;
  /** Loads storage, restarts Raft from it, starts timers and the transport handler. */
  start(): Promise<void>;
  /** A clean shutdown: syncs and closes storage, cancels timers; the transport is the caller's. */
  stop(): Promise<void>;
  /** Process death: from now on the server does nothing (no I/O, no timers, no replies). */
  crash(): void;
  /** null before start() finished or after stop/crash. */
  status(): ServerStatus | null;
  view(): ServerView | null;
}

/** A configuration as `ctl query` reports it (CONTRACT). */
export interface PublishedConfig {
  readonly config: Config;
  /** Whether every shard move into this configuration is done (config.num <= current). */
  readonly published: boolean;
}

/**
 * What the clerk learned of one operation. `unknown`: it may have taken effect or not (a
 * deadline passed with a request in flight); never reported as failed.
 */
export type Outcome<T> =
  | { readonly status: 'ok'; readonly value: T }
  | { readonly status: 'refused'; readonly error: string }
  | { readonly status: 'unknown'; readonly error: string };
