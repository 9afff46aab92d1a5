/**
 * Check (b) of `shardkv conform`, the links: every delivered Raft message was sent first, on
 * that link (sender and receiver as its id and the sender's step say), with the same content;
 * and it left only after every `beforeSends` save of its step and of the earlier steps of that
 * incarnation was durable, i.e. after a `synced` record covering the last such step (its
 * stamp's clock exceeds that record's; the shell stamps a message when it sends it). A
 * leader's own append (`thenReport`) and a commitIndex-only hard state (`withNext`) hold
 * nothing back (spec/raft/types.ts SyncDuty).
 *
 * The ledger is filled as the records stream by and checked once every file was read. It
 * keeps each message's text (a long one as its hash), not the message: in the rare case that
 * a delivery's differs from its send's, both records are read again and compared field by
 * field (a codec may order fields its own way).
 */
import { fnv1a64 } from '../../spec/fnv.js';
import type { Message } from '../../spec/raft/types.js';
import type { TraceRecord } from '../../impl/trace/schema.js';
import { canonicalText } from './canonical.js';
import { MalformedTraceError, shown, type Divergence } from './divergence.js';
import { readNodeTrace } from './load.js';
import { isSaveEffect } from './storage-model.js';
import type { TraceSource } from './trace-lines.js';

interface Sent {
  readonly node: string;
  readonly seq: number;
  readonly to: string;
  readonly content: string;
  /** The last step of this incarnation up to the send's with a `beforeSends` save, or 0. */
  readonly gate: number;
}

interface Delivery {
  readonly record: Pick<TraceRecord, 'node' | 'seq' | 'actor' | 'lamport'>;
  readonly id: string | null;
  /** The sender as the receiver's peer list names it. */
  readonly from: string;
  readonly content: string;
  readonly sentLamport: number | null;
}

/** A node's `synced` records in order: the step each covers and its clock. */
interface Synced {
  readonly steps: number[];
  readonly lamports: number[];
}

type SendEffect = { type: 'send'; to: number; message: Message<unknown, unknown>; id: string };
type DeliveryInput = { type: string; from: number; message: Message<unknown, unknown>;
  id: string | null; sentLamport: number | null };

export function shellDivergence(record: Delivery['record'], what: string, expected?: string,
  recorded?: string): Divergence {
  return {
    check: 'shell', what, node: record.node, step: record.seq, actor: record.actor,
    lamport: record.lamport,
    ...(expected === undefined ? {} : { expected: shown(expected) }),
    ...(recorded === undefined ? {} : { recorded: shown(recorded) }),
  };
}

/** Texts up to this length are kept as they are; a longer one as its length and hash. */
const keptTextMax = 120;

/**
 * What tells a message's content apart: its plain JSON as parsed (an ordered map as its tree,
 * which both sides rebuilt alike from the same entries), or for a long one (entries, an
 * image) its length and 64-bit FNV-1a.
 */
function contentOf(message: Message<unknown, unknown>): string {
  const text = JSON.stringify(message);
  return text.length <= keptTextMax ? text : `${text.length}:${fnv1a64(text)}`;
}

/** Whether a step's saves hold back the sends after them (SyncDuty `beforeSends`). */
function gatesSends(record: TraceRecord): boolean {
  return record.effects.some((effect) =>
    isSaveEffect(effect) && (effect as { sync?: unknown }).sync === 'beforeSends');
}

/** The clock of the first `synced` record covering step `gate` (syncs cover in order). */
function syncedClock(synced: Synced | undefined, gate: number): number | undefined {
  if (synced === undefined) return undefined;
  let low = 0;
  let high = synced.steps.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (synced.steps[middle]! >= gate) high = middle;
    else low = middle + 1;
  }
  return synced.lamports[low];
}

export class LinkLedger {
  private readonly sent = new Map<string, Sent>();
  private readonly synced = new Map<string, Synced>();
  private readonly deliveries: Delivery[] = [];
  /** Each node's last Lamport clock: where its file ends. */
  private readonly ends = new Map<string, number>();

  /** What reads `node`'s records, in order, into the ledger. */
  reader(node: string): (record: TraceRecord) => void {
    let peers: readonly string[] = [];
    let gate = 0;
    const own: Synced = { steps: [], lamports: [] };
    this.synced.set(node, own);
    return (record) => {
      this.ends.set(node, record.lamport);
      if (record.setup !== undefined) peers = record.setup.peers;
      if (record.actor === 'shell') {
        own.steps.push((record.input as { step: number }).step);
        own.lamports.push(record.lamport);
      }
      if (record.actor !== 'raft') return;
      const input = record.input as DeliveryInput;
      // A restart loads only what was durable: nothing of the new incarnation waits yet.
      if (input.type === 'restart') gate = 0;
      if (input.type === 'message') {
        const { seq, actor, lamport } = record;
        this.deliveries.push({ record: { node, seq, actor, lamport }, id: input.id,
          from: peers[input.from] ?? '?', content: contentOf(input.message),
          sentLamport: input.sentLamport });
      }
      if (gatesSends(record)) gate = record.seq;
      for (const effect of record.effects as SendEffect[]) {
        if (effect.type !== 'send') continue;
        this.sent.set(effect.id, { node, seq: record.seq, to: peers[effect.to] ?? '?',
          content: contentOf(effect.message), gate });
      }
    };
  }

  /** The first delivery, in file order, that breaks a link duty; `sources` to read again. */
  check(sources: ReadonlyMap<string, TraceSource>): Divergence | null {
    for (const delivery of this.deliveries) {
      const found = this.checkDelivery(delivery, sources);
      if (found !== null) return found;
    }
    return null;
  }

  private checkDelivery(delivery: Delivery, sources: ReadonlyMap<string, TraceSource>):
    Divergence | null {
    const { record, id } = delivery;
    const origin = id === null ? undefined : this.sent.get(id);
    if (origin === undefined) {
      if (id !== null) this.missingSend(record.node, id, delivery.sentLamport);
      return shellDivergence(record, `delivered message ${id} was never sent`);
    }
    if (origin.to !== record.node || origin.node !== delivery.from) {
      return shellDivergence(record, `message ${id} was sent on another link`,
        `${origin.node} -> ${origin.to}`, `${delivery.from} -> ${record.node}`);
    }
    if (origin.content !== delivery.content) {
      const sentText = canonicalText(messageAt(sources, origin.node, origin.seq, id!, 'sent'));
      const text = canonicalText(messageAt(sources, record.node, record.seq, id!, 'delivered'));
      if (sentText !== text) {
        return shellDivergence(record, `message ${id} differs from the one sent`, sentText,
          text);
      }
    }
    if (origin.gate === 0) return null;
    const syncedAt = syncedClock(this.synced.get(origin.node), origin.gate);
    if (syncedAt === undefined || syncedAt >= delivery.sentLamport!) {
      return shellDivergence(record, `message ${id} (step ${origin.seq}) left ` +
        `${origin.node} before the persist of its step ${origin.gate} was synced`);
    }
    return null;
  }

  /**
   * A delivered message whose send is in no file: when its sender has no trace, or the
   * sender's trace ends before the clock the message left at, the input is incomplete (exit
   * 2), not a divergence. The sender is named by the message id (`node:incarnation:counter`).
   */
  private missingSend(node: string, id: string, sentLamport: number | null): void {
    const sender = /^(.+):\d+:\d+$/.exec(id)?.[1];
    if (sender === undefined) return;
    const end = this.ends.get(sender);
    if (end === undefined && !this.synced.has(sender)) {
      throw new MalformedTraceError(`no trace of ${sender} (${sender}.jsonl): ${node} ` +
        `received its message ${id}`);
    }
    if (sentLamport !== null && (end ?? 0) < sentLamport) {
      throw new MalformedTraceError(`${sender}.jsonl is truncated: it ends at Lamport clock ` +
        `${end ?? 0}, before message ${id} left it at ${sentLamport} (${node} received it)`);
    }
  }
}

/** The message `id` as step `seq` of `node` sent or received it, read again from its file. */
function messageAt(sources: ReadonlyMap<string, TraceSource>, node: string, seq: number,
  id: string, side: 'sent' | 'delivered'): unknown {
  for (const record of readNodeTrace(node, sources.get(node)!)) {
    if (record.seq !== seq) continue;
    if (side === 'delivered') return (record.input as DeliveryInput).message;
    return (record.effects as SendEffect[]).find((effect) => effect.id === id)?.message;
  }
  return undefined;
}
