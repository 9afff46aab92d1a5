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
  ClientRequest, DedupMap, GroupResult, GroupState, Image, KvMap, ShardState,
} from '../../spec/group/types.js';
import type { DriverState, ShardProgress } from '../../spec/migration/types.js';
import { recordClientAnswer } from '../../models/migration/history.js';
import {
  scriptRequest, type ClientState, type History, type MigrationBounds,
} from '../../models/migration/model-state.js';

/** The model's bounds from a trace's parameters (the names `shardkv models` lists). */
export function migrationBounds(params: Params): MigrationBounds {
  const integer = (name: string) => params[name] as number;
  return {
    groups: integer('groups'), shards: integer('shards'), clients: integer('clients'),
    ops: integer('ops'), maxReconfigs: integer('max-reconfigs'),
    maxCrashes: integer('max-crashes'), maxDuplicates: integer('max-duplicates'),
    maxExpiries: integer('max-expiries'), maxReuses: integer('max-reuses'),
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
  }));
  return { ...group, shards };
}

/** The driver's beliefs with the images it holds in the model's map implementation. */
export function modelDriver(driver: DriverState): DriverState {
  const progress = driver.progress.map((progress): ShardProgress => {
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

/** The scripted clients and the history, as the model's replyToSender and deliver keep them. */
export class ClientBook {
  clients: ClientState[];
  history: History;

  constructor(private readonly bounds: MigrationBounds, initial: {
    clients: readonly ClientState[]; history: History;
  }) {
    this.clients = initial.clients.slice();
    this.history = initial.history;
  }

  /** The request client `index` sends now: its script's next, or the one it reused the seq for. */
  outstanding(index: number): ClientRequest {
    const client = this.clients[index]!;
    return scriptRequest(this.bounds, index, client.done, client.reusedSeq === client.done);
  }

  /** A group answered `request` (the client may or may not see it): the history notes it. */
  answered(record: ShardState, request: ClientRequest, result: GroupResult): void {
    if (result.type !== 'value') return;
    this.history = recordClientAnswer(this.history, this.bounds,
      { record, request, value: result.value });
  }

  /** The reply reached the client: it moves on if it answers what it waits for. */
  received(request: ClientRequest, result: GroupResult): void {
    const client = this.clients[request.client]!;
    if (result.type !== 'value' || client.done !== request.seq) return;
    const waiting = this.outstanding(request.client);
    if (waiting.op !== request.op || waiting.value !== request.value) return;
    const results = [...client.results, result.value];
    this.clients[request.client] = { ...client, done: client.done + 1, results };
  }

  learned(index: number, configNum: number): void {
    this.clients[index] = { ...this.clients[index]!, configNum };
  }

  reuse(index: number): void {
    const client = this.clients[index]!;
    this.clients[index] = { ...client, reusedSeq: client.done };
  }
}
