/**
 * What conform's link check keeps of every Raft message sent, in a few typed-array slots
 * (issue 23 item 4: a trace of millions of messages must not hold millions of objects): its
 * receiver, the step that sent it, the `beforeSends` step it waited for, when that step's
 * persist was synced, and a 64-bit hash of its text. A message id is
 * `node:incarnation:counter` (impl/trace/schema.ts messageId), counters ascending in an
 * incarnation, so slots are found by the counter, in chunks per incarnation.
 *
 * The store is bounded: past `messagesMax` slots the oldest chunk is forgotten, and a
 * delivery of a message in it is counted as unchecked rather than reported as never sent (a
 * message delivered millions of messages after it left; the simulator's late frames arrive
 * within a few hundred).
 */

/** A message's slots: the receiver as a node number, steps, clocks and the text's hash. */
export interface SentMessage {
  readonly receiver: number;
  readonly seq: number;
  readonly gate: number;
  /** The clock of the `synced` record that covered `gate`; Infinity while none has. */
  readonly syncedAt: number;
  readonly hashHigh: number;
  readonly hashLow: number;
}

const chunkBits = 14;
const chunkMessages = 1 << chunkBits;
const firstCapacity = 64;

class Chunk {
  capacity = 0;
  /** The receiver's node number + 1; 0: no Raft message has this counter. */
  receivers = new Uint16Array(0);
  seqs = new Float64Array(0);
  gates = new Float64Array(0);
  syncedAt = new Float64Array(0);
  hashes = new Int32Array(0);
  forgotten = false;

  /** Makes room for `offset`: slots double up to the chunk's size. */
  reserve(offset: number): void {
    if (offset < this.capacity) return;
    let capacity = Math.max(firstCapacity, this.capacity);
    while (capacity <= offset) capacity *= 2;
    capacity = Math.min(capacity, chunkMessages);
    type Slots = Uint16Array | Float64Array | Int32Array;
    const grown = <T extends Slots>(old: T, make: (n: number) => T, width = 1): T => {
      const next = make(capacity * width);
      next.set(old);
      return next;
    };
    this.receivers = grown(this.receivers, (n) => new Uint16Array(n));
    this.seqs = grown(this.seqs, (n) => new Float64Array(n));
    this.gates = grown(this.gates, (n) => new Float64Array(n));
    this.syncedAt = grown(this.syncedAt, (n) => new Float64Array(n));
    this.hashes = grown(this.hashes, (n) => new Int32Array(n), 2);
    this.capacity = capacity;
  }

  forget(): void {
    this.forgotten = true;
    this.capacity = 0;
    this.receivers = new Uint16Array(0);
    this.seqs = new Float64Array(0);
    this.gates = new Float64Array(0);
    this.syncedAt = new Float64Array(0);
    this.hashes = new Int32Array(0);
  }
}

/** One incarnation's messages and how far its `synced` records have covered them. */
class Incarnation {
  readonly chunks: Chunk[] = [];
  /** Counters below this have had their gate looked at by a `synced` record. */
  syncedThrough = 1;
  /** One past the highest counter stored. */
  end = 1;
}

/** About 34 bytes a slot: at most some 140 MiB. */
export const sentMessagesMax = 1 << 22;

export type Lookup = SentMessage | 'unknown' | 'forgotten';

/** `node:inc:counter` as its parts, or null when the id is not of that form. */
export function messageIdParts(id: string): { sender: string; inc: number; counter: number } |
  null {
  const last = id.lastIndexOf(':');
  const middle = last < 0 ? -1 : id.lastIndexOf(':', last - 1);
  if (middle <= 0) return null;
  const inc = Number(id.slice(middle + 1, last));
  const counter = Number(id.slice(last + 1));
  if (!Number.isSafeInteger(inc) || !Number.isSafeInteger(counter) || counter < 1 ||
    id.slice(middle + 1, last) !== String(inc) || id.slice(last + 1) !== String(counter)) {
    return null;
  }
  return { sender: id.slice(0, middle), inc, counter };
}

export class SentMessages {
  private readonly incarnations = new Map<string, Incarnation>();
  /** Chunks in the order they were made: the oldest is forgotten first. */
  private readonly made: Chunk[] = [];
  private madeHead = 0;
  private stored = 0;
  unchecked = 0;

  constructor(private readonly messagesMax = sentMessagesMax) {}

  add(sender: string, inc: number, counter: number, message: SentMessage): void {
    const incarnation = this.incarnation(sender, inc, true)!;
    const index = counter >> chunkBits;
    let chunk = incarnation.chunks[index];
    if (chunk === undefined) {
      chunk = incarnation.chunks[index] = new Chunk();
      this.made.push(chunk);
    }
    if (chunk.forgotten) return;
    const offset = counter & (chunkMessages - 1);
    const before = chunk.capacity;
    chunk.reserve(offset);
    this.stored += chunk.capacity - before;
    chunk.receivers[offset] = message.receiver + 1;
    chunk.seqs[offset] = message.seq;
    chunk.gates[offset] = message.gate;
    chunk.syncedAt[offset] = message.syncedAt;
    chunk.hashes[2 * offset] = message.hashHigh;
    chunk.hashes[2 * offset + 1] = message.hashLow;
    incarnation.end = Math.max(incarnation.end, counter + 1);
    while (this.stored > this.messagesMax && this.madeHead < this.made.length) {
      const oldest = this.made[this.madeHead++]!;
      this.stored -= oldest.capacity;
      oldest.forget();
    }
  }

  get(sender: string, inc: number, counter: number): Lookup {
    const chunk = this.incarnation(sender, inc, false)?.chunks[counter >> chunkBits];
    if (chunk === undefined) return 'unknown';
    if (chunk.forgotten) return 'forgotten';
    const offset = counter & (chunkMessages - 1);
    if (offset >= chunk.capacity || chunk.receivers[offset] === 0) return 'unknown';
    return {
      receiver: chunk.receivers[offset]! - 1, seq: chunk.seqs[offset]!,
      gate: chunk.gates[offset]!, syncedAt: chunk.syncedAt[offset]!,
      hashHigh: chunk.hashes[2 * offset]!, hashLow: chunk.hashes[2 * offset + 1]!,
    };
  }

  /**
   * A `synced` record of `sender` at clock `lamport` covers every step up to `step`: each
   * message of that incarnation still waiting for a gate at or below `step` was let go then.
   * Gates ascend with the counters (a gate is the incarnation's last `beforeSends` step so
   * far), so the walk stops at the first gate above `step` and resumes there next time.
   */
  synced(sender: string, inc: number, step: number, lamport: number): void {
    const incarnation = this.incarnation(sender, inc, false);
    if (incarnation === undefined) return;
    let counter = incarnation.syncedThrough;
    for (; counter < incarnation.end; counter++) {
      const chunk = incarnation.chunks[counter >> chunkBits];
      if (chunk === undefined || chunk.forgotten) {
        counter = ((counter >> chunkBits) + 1) * chunkMessages - 1;
        continue;
      }
      const offset = counter & (chunkMessages - 1);
      if (offset >= chunk.capacity || chunk.receivers[offset] === 0) continue;
      if (chunk.gates[offset]! > step) break;
      if (chunk.syncedAt[offset] === Infinity) chunk.syncedAt[offset] = lamport;
    }
    incarnation.syncedThrough = counter;
  }

  private incarnation(sender: string, inc: number, make: boolean): Incarnation | undefined {
    const key = `${sender}:${inc}`;
    let found = this.incarnations.get(key);
    if (found === undefined && make) this.incarnations.set(key, (found = new Incarnation()));
    return found;
  }
}
