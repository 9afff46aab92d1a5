/**
 * The client requests this replica holds and has not applied, the latest per client: what
 * spec/group/retry-admission.ts's `admitRequest` needs to know. A request is held from the
 * moment this server proposes it (queued in a batch, with no place in the log yet) or its
 * log stores it (an append adds, a truncation drops what it replaced) until it applies.
 * Retries that wait for a request still queued join it and learn its place with it.
 * Bounded by the number of clients with a request unapplied.
 */
import type { GroupCommand } from '../../spec/group/types.js';
import type { ClientRequest } from '../../spec/group/types.js';
import { sameRequest, type HeldRequest } from '../../spec/group/retry-admission.js';
import type { Entry } from '../../spec/raft/types.js';
import type { Proposed } from './raft-loop.js';

type Placed = (proposed: Proposed) => void;

interface Record {
  held: HeldRequest;
  /** Retries waiting for the queued request's place (empty once it has one). */
  joiners: Placed[];
}

function clientRequestOf(command: unknown): ClientRequest | null {
  const candidate = command as { type?: unknown; request?: { client?: unknown } } | null;
  if (candidate?.type !== 'client' || typeof candidate.request?.client !== 'number') return null;
  return (candidate as GroupCommand & { type: 'client' }).request;
}

export class HeldRequests {
  private readonly byClient = new Map<number, Record>();
  /** No held request is at a higher index (an append at the end scans nothing). */
  private highestIndex = 0;

  /** This server proposes `request`: held until it has a place (placed) or is refused. */
  queued(request: ClientRequest): void {
    this.byClient.set(request.client, { held: { request, index: null, term: null }, joiners: [] });
  }

  /** A retry of the queued request of `client` learns its place with it. */
  join(client: number, placed: Placed): void {
    const record = this.byClient.get(client);
    if (record === undefined || record.held.index !== null) return placed(null);
    record.joiners.push(placed);
  }

  /** The proposal of `request` got its place (or null: refused); its joiners learn it. */
  placed(request: ClientRequest, proposed: Proposed): void {
    const record = this.byClient.get(request.client);
    if (record === undefined || !sameRequest(record.held.request, request)) return;
    const joiners = record.joiners;
    record.joiners = [];
    if (proposed === null && record.held.index === null) this.byClient.delete(request.client);
    for (const joiner of joiners) joiner(proposed);
  }

  /** The log's entries from `fromIndex` on were replaced by `entries`. */
  saved(fromIndex: number, entries: readonly Entry<unknown>[]): void {
    if (fromIndex <= this.highestIndex) {
      for (const [client, record] of this.byClient) {
        const index = record.held.index;
        if (index !== null && index >= fromIndex) this.byClient.delete(client);
      }
    }
    this.highestIndex = Math.max(this.highestIndex, fromIndex + entries.length - 1);
    entries.forEach((entry, offset) => {
      const request = clientRequestOf(entry.command);
      if (request === null) return;
      const held = { request, index: fromIndex + offset, term: entry.term };
      const before = this.byClient.get(request.client);
      // The queued copy reached the log: its joiners stay until `placed` answers them.
      const joiners = before !== undefined && sameRequest(before.held.request, request)
        ? before.joiners : [];
      this.byClient.set(request.client, { held, joiners });
    });
  }

  /** Entry `index` applied: its client's request, if it is the one held, is no longer. */
  applied(index: number, command: unknown): void {
    const client = clientRequestOf(command)?.client;
    if (client === undefined) return;
    const held = this.byClient.get(client)?.held;
    if (held?.index !== null && held !== undefined && held.index <= index) {
      this.byClient.delete(client);
    }
  }

  /** A snapshot up to `index` was restored: everything it covers is applied. */
  restored(index: number): void {
    for (const [client, record] of this.byClient) {
      const held = record.held.index;
      if (held !== null && held <= index) this.byClient.delete(client);
    }
  }

  get(client: number): HeldRequest | undefined {
    return this.byClient.get(client)?.held;
  }
}
