/**
 * What the link check (link-ledger.ts) reads of one record, taken where the record is parsed:
 * a node's thread of conform (node-stage.ts) hands these few numbers and ids to the ledger
 * instead of the record, whose messages it hashes there (issue 23 item 4: the hashing was
 * the larger part of the ledger's time). A message's text is kept as two 32-bit FNV-1a
 * hashes of its JSON text; when a delivery's differ from its send's, the ledger reads both
 * records again from their files and compares them field by field.
 */
import { fnv1aStep, fnvOffset32 } from '../../spec/fnv.js';
import type { Message } from '../../spec/raft/types.js';
import type { TraceActor, TraceRecord } from '../../impl/trace/schema.js';
import { isSaveEffect } from './storage-model.js';

/** A message's JSON text as two 32-bit hashes. */
export interface TextHash {
  readonly hashHigh: number;
  readonly hashLow: number;
}

export interface SentFact extends TextHash {
  readonly to: number;
  readonly id: string;
}

export interface DeliveryFact extends TextHash {
  readonly from: number;
  readonly id: string | null;
  readonly sentLamport: number | null;
}

export interface LinkFacts {
  /** The node's peers, on a record that sets the node up (a restart). */
  readonly peers: readonly string[] | null;
  /** A `synced` record: the last step its sync covered. */
  readonly syncedStep: number | null;
  /** A Raft restart: nothing of the new incarnation waits for a sync yet. */
  readonly restart: boolean;
  readonly delivery: DeliveryFact | null;
  /** The step has a `beforeSends` save: the sends after it wait for its sync. */
  readonly gates: boolean;
  readonly sends: readonly SentFact[];
}

/** A record's place, and what the ledger reads of it. */
export interface LinkStep {
  readonly node: string;
  readonly seq: number;
  readonly inc: number;
  readonly lamport: number;
  readonly actor: TraceActor;
  readonly link: LinkFacts;
}

type SendEffect = { type: 'send'; to: number; message: Message<unknown, unknown>; id: string };
type DeliveryInput = { type: string; from: number; message: Message<unknown, unknown>;
  id: string | null; sentLamport: number | null };

/** A second FNV-1a seed: two 32-bit hashes make the 64 bits a message's text is kept as. */
const secondSeed = 0x5bd1e995;

/** FNV-1a of `value`'s JSON text from the offset basis and from secondSeed, in one pass. */
export function textHash(value: unknown): TextHash {
  const text = JSON.stringify(value) ?? '';
  let high = fnvOffset32;
  let low = secondSeed;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    high = fnv1aStep(high, unit);
    low = fnv1aStep(low, unit);
  }
  return { hashHigh: high | 0, hashLow: low | 0 };
}

/** Whether a step's saves hold back the sends after them (SyncDuty `beforeSends`). */
function gatesSends(record: TraceRecord): boolean {
  return record.effects.some((effect) =>
    isSaveEffect(effect) && (effect as { sync?: unknown }).sync === 'beforeSends');
}

/** What the ledger reads of `record`; null when it reads nothing of it. */
export function linkFacts(record: TraceRecord): LinkFacts | null {
  const peers = record.setup?.peers ?? null;
  const none = { peers, syncedStep: null, restart: false, delivery: null, gates: false,
    sends: [] };
  // Fields a malformed record lacks are null (-1 for a peer) here, so that the facts cross a
  // thread as JSON (step-codec.ts) unchanged.
  if (record.actor === 'shell') {
    return { ...none, syncedStep: (record.input as { step?: number }).step ?? null };
  }
  if (record.actor !== 'raft') return peers === null ? null : none;
  const input = record.input as DeliveryInput;
  const delivery = input.type !== 'message' ? null : {
    from: input.from ?? -1, id: input.id ?? null, sentLamport: input.sentLamport ?? null,
    ...textHash(input.message),
  };
  const sends: SentFact[] = [];
  for (const effect of record.effects as SendEffect[]) {
    if (effect.type === 'send') {
      sends.push({ to: effect.to ?? -1, id: String(effect.id), ...textHash(effect.message) });
    }
  }
  return { peers, syncedStep: null, restart: input.type === 'restart', delivery,
    gates: gatesSends(record), sends };
}

/** `record` as the ledger takes it (the tests feed records so). */
export function linkStep(record: TraceRecord): LinkStep | null {
  const link = linkFacts(record);
  if (link === null) return null;
  const { node, seq, inc, lamport, actor } = record;
  return { node, seq, inc, lamport, actor, link };
}
