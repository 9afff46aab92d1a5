/**
 * Reading the `migration` model's variables out of a runtime replay: the controller and the
 * groups from the servers' applied state, the driver's beliefs from the controller server's
 * DriverHost, and the scripted clients with the proof-only history, which the replay keeps
 * itself from the replies the real servers sent (the model's clients are the replay's).
 */
import type { Params } from '../../checker/model.js';
import type { ControllerState } from '../../spec/controller/state-machine.js';
import { SortedArrayMap } from '../../spec/group/ordered-map.js';
import type {
  ClientRequest, DedupMap, GroupResult, GroupState, Image, ImagePart, KvMap, ShardState,
} from '../../spec/group/types.js';
import type { DriverState, ShardProgress } from '../../spec/migration/types.js';
import { clientAnswer, recordClientAnswer } from '../../models/migration/history.js';
import {
  clientAnswered, clientLearns, clientReusesSeq, pendingSend,
} from '../../models/migration/model-clients.js';
import type { ClientState, History, MigrationBounds } from '../../models/migration/model-state.js';
import type { Config } from '../../spec/controller/types.js';

/** The model's bounds from a trace's parameters (the names `shardkv models` lists). */
export function migrationBounds(params: Params): MigrationBounds {
  const integer = (name: string) => params[name] as number;
  return {
    groups: integer('groups'), shards: integer('shards'), clients: integer('clients'),
    ops: integer('ops'), maxReconfigs: integer('max-reconfigs'),
    maxCrashes: integer('max-crashes'), maxDuplicates: integer('max-duplicates'),
    maxExpiries: integer('max-expiries'), maxReuses: integer('max-reuses'),
    partBytes: integer('part-bytes'),
  };
}

function sortedCopy<K extends string | number, V>(
  map: { entries(): IterableIterator<readonly [K, V]> },
): SortedArrayMap<K, V> {
  let copy = SortedArrayMap.empty<K, V>();
  for (const [key, value] of map.entries()) copy = copy.set(key, value);
  return copy;
}

/**
 * A runtime group state in the model's map implementation: the runtime keeps B+ trees, the
 * model sorted arrays, and the trace records the latter's fields.
 */
export function modelGroup(group: GroupState): GroupState {
  const shards = group.shards.map((record): ShardState => ({
    ...record,
    kv: sortedCopy(record.kv) as KvMap,
    dedup: sortedCopy(record.dedup) as DedupMap,
    staged: record.staged === null ? null : { ...record.staged, ...modelPart(record.staged) },
    ...(record.precopy === undefined ? {} : {
      precopy: { ...record.precopy, ...modelPart(record.precopy) } }),
  }));
  return { ...group, shards };
}

/** A part's maps (or a staging's) in the model's map implementation. */
function modelPart(part: ImagePart): ImagePart {
  return { kv: sortedCopy(part.kv) as KvMap, dedup: sortedCopy(part.dedup) as DedupMap };
}

/** The driver's beliefs with the images it holds in the model's map implementation. */
export function modelDriver(driver: DriverState): DriverState {
  const progress = driver.progress.map((progress): ShardProgress => {
    if (progress.step === 'stage') {
      const parts = progress.parts.map((part) => (part === null ? null : modelPart(part)));
      if (progress.delta === undefined) return { ...progress, parts };
      return { ...progress, parts, delta: { ...progress.delta, ...modelPart(progress.delta) } };
    }
    if (progress.step !== 'install' || progress.image === null) return progress;
    const image: Image = { ...progress.image, kv: sortedCopy(progress.image.kv) as KvMap,
      dedup: sortedCopy(progress.image.dedup) as DedupMap };
    return { ...progress, image };
  });
  return { ...driver, progress };
}

/**
 * The runtime controller as the model holds it. `sessions` is the model's: the replay's
 * administrator and clients ask through sessions as the shell requires, the model's ask
 * without one, so that variable is the one the runtime does not share.
 */
export function modelController(
  runtime: ControllerState,
  expected: ControllerState,
): ControllerState {
  return { ...runtime, sessions: expected.sessions };
}

/**
 * The scripted clients and the history, as the model keeps them: each client runs the
 * model's client step (models/migration/model-clients.ts, spec/client's `stepClient`), fed
 * with the replies the real servers sent; `latest` is the controller's latest configuration.
 */
export class ClientBook {
  clients: ClientState[];
  history: History;

  constructor(private readonly bounds: MigrationBounds, initial: {
    clients: readonly ClientState[]; history: History;
  }) {
    this.clients = initial.clients.slice();
    this.history = initial.history;
  }

  /** The attempt client `index` sends now (null: it waits for no reply). */
  outstanding(index: number): { gid: number; request: ClientRequest } | null {
    return pendingSend(this.clients[index]!);
  }

  /** A group answered `request` (the client may or may not see it): the history notes it. */
  answered(record: ShardState, request: ClientRequest, result: GroupResult): void {
    const answer = clientAnswer(record, request, result);
    if (answer !== null) this.history = recordClientAnswer(this.history, this.bounds, answer);
  }

  /** The reply of `gid` reached the client (null: it was lost and the attempt timed out). */
  received(request: ClientRequest, gid: number, result: GroupResult | null, latest: Config): void {
    const client = this.clients[request.client]!;
    this.clients[request.client] =
      clientAnswered(this.bounds, client, request, gid, result, latest);
  }

  /** The application asked for the latest configuration: false when it was not newer. */
  learned(index: number, latest: Config): boolean {
    const client = clientLearns(this.bounds, index, this.clients[index]!, latest);
    if (client !== null) this.clients[index] = client;
    return client !== null;
  }

  reuse(index: number): boolean {
    const client = clientReusesSeq(this.bounds, index, this.clients[index]!);
    if (client !== null) this.clients[index] = client;
    return client !== null;
  }
}
