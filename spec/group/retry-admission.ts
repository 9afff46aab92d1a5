/**
 * What a leader does with a client request it may already hold (issue 27's retry storms): a
 * clerk that heard nothing sends the same (client, seq) again, and a leader that proposed
 * every copy wrote a 1 MiB put into its log once per retry. The dedup table makes the copies
 * harmless at apply (Raft dissertation §6.3) but not free. So a leader that holds the very
 * same request in its log, not yet applied, or in a proposal batch that has no place in the
 * log yet, proposes nothing and waits for that entry: its
 * result (or `wrong-leader` if another entry takes the index) answers the retry, as it
 * answers the first attempt. A retry of a request that already applied is answered from its
 * dedup record (client-requests.ts's recordedResult), as the apply function would answer it.
 * Anything else is proposed, and the apply function decides
 * (identity-conflict for another request under the same (client, seq), stale-request for an
 * older seq): this rule only saves work, it never changes a result.
 */
import type { ClientRequest, GroupResult } from './types.js';

/** A client request in the log and not applied yet: where it is (null: not placed yet). */
export type HeldRequest =
  | { readonly request: ClientRequest; readonly index: number; readonly term: number }
  | { readonly request: ClientRequest; readonly index: null; readonly term: null };

export type Admission =
  | { readonly type: 'propose' }
  /**
   * Answer from entry `index` of `term` once it applies (its result is the dedup record's);
   * index null: from the entry the held proposal gets, once it gets one.
   */
  | { readonly type: 'await'; readonly index: number | null; readonly term: number | null }
  /** The request applied already: `result` is its dedup record's. */
  | { readonly type: 'answer'; readonly result: GroupResult };

/** The very same request: (client, seq) and what it asks. */
export function sameRequest(a: ClientRequest, b: ClientRequest): boolean {
  return a.client === b.client && a.seq === b.seq && a.op === b.op && a.key === b.key &&
    a.value === b.value;
}

/**
 * `recorded`: recordedResult of `request` in the applied state (a committed fact: any
 * replica may answer it); `held`: the latest request of `request.client` this server holds
 * unapplied, if any; `leading`: whether this server leads (a follower's entry may never
 * commit, and its proposal is refused anyway, so the client learns who leads).
 */
export function admitRequest(
  recorded: GroupResult | null,
  held: HeldRequest | undefined,
  request: ClientRequest,
  leading: boolean,
): Admission {
  if (recorded !== null) return { type: 'answer', result: recorded };
  if (!leading || held === undefined || !sameRequest(held.request, request)) {
    return { type: 'propose' };
  }
  return { type: 'await', index: held.index, term: held.term };
}
