/**
 * Check (b) of `shardkv conform`, the links: every delivered Raft message was sent first, on
 * that link (sender and receiver as its id and the sender's step say), with the same content;
 * and it left only after every `beforeSends` save of its step and of the earlier steps of that
 * incarnation was durable, i.e. after a `synced` record covering the last such step (its
 * stamp's clock exceeds that record's; the shell stamps a message when it sends it). A
 * leader's own append (`thenReport`) and a commitIndex-only hard state (`withNext`) hold
 * nothing back (spec/raft/types.ts SyncDuty).
 *
 * The ledger is fed the records along the merge by Lamport clock (lamport-merge.ts), where a
 * message's send always comes before its deliveries, so each delivery is checked as it is
 * read. Of a message sent it keeps a few numbers (sent-messages.ts), its text as a 64-bit
 * hash (taken where the record was parsed: link-facts.ts): when a delivery's hash differs,
 * the send and the delivery are read again from their files and compared field by field (a
 * codec may order fields its own way).
 */
import { assert } from '../../spec/assert.js';
import type { Message } from '../../spec/raft/types.js';
import type { TraceRecord } from '../../impl/trace/schema.js';
import { canonicalText } from './canonical.js';
import { shown, type Divergence } from './divergence.js';
import type { DeliveryFact, LinkStep, SentFact } from './link-facts.js';
import { readNodeTrace } from './load.js';
import { messageIdParts, SentMessages, type SentMessage } from './sent-messages.js';
import type { TraceSource } from './trace-lines.js';

type SendEffect = { type: 'send'; to: number; message: Message<unknown, unknown>; id: string };

type Place = Pick<TraceRecord, 'node' | 'seq' | 'actor' | 'lamport'>;

export function shellDivergence(record: Place, what: string, expected?: string,
  recorded?: string): Divergence {
  return {
    check: 'shell', what, node: record.node, step: record.seq, actor: record.actor,
    lamport: record.lamport,
    ...(expected === undefined ? {} : { expected: shown(expected) }),
    ...(recorded === undefined ? {} : { recorded: shown(recorded) }),
  };
}

/** A node's first link problem: a divergence, or input that is incomplete (exit 2). */
type Problem = { readonly divergence: Divergence } | { readonly incomplete: string };

/** What the ledger follows of each node as its records go by. */
interface NodeLinks {
  peers: readonly string[];
  /** The last step of this incarnation so far with a `beforeSends` save, or 0. */
  gate: number;
  /** The last step of this incarnation a `synced` record covered, or 0. */
  syncedStep: number;
}

/** The most nodes the ledger numbers (a receiver is kept in 16 bits). */
const nodesMax = 0xfffe;

export class LinkLedger {
  private readonly sent: SentMessages;
  private readonly numbers = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly nodes = new Map<string, NodeLinks>();
  private readonly problems = new Map<string, Problem>();

  /**
   * @param sources every node's trace, to read a send again
   * @param endOf where a node's trace ended (its last clock), undefined while it goes on
   */
  constructor(private readonly sources: ReadonlyMap<string, TraceSource>,
    private readonly endOf: (node: string) => number | undefined, messagesMax?: number) {
    this.sent = new SentMessages(messagesMax);
  }

  /** Deliveries of messages sent so long before that the ledger had forgotten them. */
  get unchecked(): number {
    return this.sent.unchecked;
  }

  /** One record's facts (link-facts.ts), in the merged order. */
  next(record: LinkStep): void {
    let links = this.nodes.get(record.node);
    if (links === undefined) {
      this.nodes.set(record.node, (links = { peers: [], gate: 0, syncedStep: 0 }));
    }
    const facts = record.link;
    if (facts.peers !== null) links.peers = facts.peers;
    if (record.actor === 'shell') {
      const step = facts.syncedStep!;
      links.syncedStep = Math.max(links.syncedStep, step);
      this.sent.synced(record.node, record.inc, step, record.lamport);
      return;
    }
    if (record.actor !== 'raft') return;
    // A restart loads only what was durable: nothing of the new incarnation waits yet.
    if (facts.restart) Object.assign(links, { gate: 0, syncedStep: 0 });
    if (facts.delivery !== null) this.deliver(record, facts.delivery, links.peers);
    if (facts.gates) links.gate = record.seq;
    for (const send of facts.sends) this.send(record, send, links);
  }

  /**
   * The first problem in file order (the nodes in `nodes` order, each one's first): a
   * divergence, or an incomplete input thrown as MalformedTraceError by the caller's wish.
   */
  firstProblem(nodes: readonly string[]): Problem | null {
    for (const node of nodes) {
      const problem = this.problems.get(node);
      if (problem !== undefined) return problem;
    }
    return null;
  }

  private problem(node: string, problem: Problem): void {
    if (!this.problems.has(node)) this.problems.set(node, problem);
  }

  private number(node: string): number {
    let number = this.numbers.get(node);
    if (number === undefined) {
      assert(this.names.length < nodesMax, `more than ${nodesMax} nodes`);
      number = this.names.push(node) - 1;
      this.numbers.set(node, number);
    }
    return number;
  }

  private send(record: LinkStep, effect: SentFact, links: NodeLinks): void {
    const parts = messageIdParts(effect.id);
    if (parts === null || parts.sender !== record.node || parts.inc !== record.inc) {
      this.problem(record.node, { divergence: shellDivergence(record,
        `message id ${effect.id} does not name this node and incarnation`) });
      return;
    }
    // A gate covered before this step was synced before the message could leave.
    const waits = links.gate !== 0 && links.gate > links.syncedStep;
    const message: SentMessage = {
      receiver: this.number(links.peers[effect.to] ?? '?'), seq: record.seq, gate: links.gate,
      syncedAt: waits ? Infinity : 0, hashHigh: effect.hashHigh, hashLow: effect.hashLow,
    };
    this.sent.add(parts.sender, parts.inc, parts.counter, message);
  }

  private deliver(record: LinkStep, input: DeliveryFact, peers: readonly string[]): void {
    if (this.problems.has(record.node)) return;
    const problem = this.deliveryProblem(record, input, peers[input.from] ?? '?');
    if (problem !== null) this.problem(record.node, problem);
  }

  private deliveryProblem(record: LinkStep, input: DeliveryFact, from: string):
    Problem | null {
    const { id } = input;
    const parts = id === null ? null : messageIdParts(id);
    const origin = parts === null ? 'unknown' : this.sent.get(parts.sender, parts.inc,
      parts.counter);
    if (origin === 'forgotten') {
      this.sent.unchecked++;
      return null;
    }
    if (origin === 'unknown') {
      const incomplete = id === null ? null : this.missingSend(record.node, id, input.sentLamport);
      return incomplete !== null ? { incomplete }
        : { divergence: shellDivergence(record, `delivered message ${id} was never sent`) };
    }
    const sender = parts!.sender;
    const to = this.names[origin.receiver]!;
    if (to !== record.node || sender !== from) {
      return { divergence: shellDivergence(record, `message ${id} was sent on another link`,
        `${sender} -> ${to}`, `${from} -> ${record.node}`) };
    }
    if (input.hashHigh !== origin.hashHigh || input.hashLow !== origin.hashLow) {
      const sentText = canonicalText(recordAt(this.sources, sender, origin.seq, (sent) =>
        (sent.effects as SendEffect[]).find((effect) => effect.id === id)?.message));
      const deliveredText = canonicalText(recordAt(this.sources, record.node, record.seq,
        (delivered) => (delivered.input as { message: unknown }).message));
      if (sentText !== deliveredText) {
        return { divergence: shellDivergence(record, `message ${id} differs from the one sent`,
          sentText, deliveredText) };
      }
    }
    if (origin.gate === 0 || origin.syncedAt < input.sentLamport!) return null;
    return { divergence: shellDivergence(record, `message ${id} (step ${origin.seq}) left ` +
      `${sender} before the persist of its step ${origin.gate} was synced`) };
  }

  /**
   * A delivered message whose send is in no file: when its sender has no trace, or the
   * sender's trace ended before the clock the message left at, the input is incomplete (exit
   * 2), not a divergence. Along the merge, a sender's trace that goes on is past that clock.
   */
  private missingSend(node: string, id: string, sentLamport: number | null): string | null {
    const sender = messageIdParts(id)?.sender;
    if (sender === undefined) return null;
    if (!this.sources.has(sender)) {
      return `no trace of ${sender} (${sender}.jsonl): ${node} received its message ${id}`;
    }
    const end = this.endOf(sender);
    if (sentLamport !== null && end !== undefined && end < sentLamport) {
      return `${sender}.jsonl is truncated: it ends at Lamport clock ${end}, before message ` +
        `${id} left it at ${sentLamport} (${node} received it)`;
    }
    return null;
  }
}

/** What `read` takes of step `seq` of `node`, read again from its file. */
function recordAt(sources: ReadonlyMap<string, TraceSource>, node: string, seq: number,
  read: (record: TraceRecord) => unknown): unknown {
  for (const record of readNodeTrace(node, sources.get(node)!)) {
    if (record.seq === seq) return read(record);
  }
  return undefined;
}
