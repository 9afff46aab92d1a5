/**
 * The nodes' record streams merged into one, in an order consistent with happens-before: by
 * Lamport clock, then node name (a send's record precedes its delivery's, whose clock exceeds
 * the message's stamp; a node's records keep their file order whatever their clocks say).
 * `shardkv conform` reads every file at once along this merge, so what the checks across
 * nodes keep can be dropped once the merge is past it (issue 23 item 4).
 */
import type { TraceRecord } from '../../impl/trace/schema.js';

interface Head {
  readonly node: string;
  readonly stream: Iterator<TraceRecord>;
  record: TraceRecord;
}

/** Whether a record at `a` comes before one at `b` in the merged order. */
export const precedes = (a: MergeKey, b: MergeKey): boolean => a.lamport < b.lamport ||
  (a.lamport === b.lamport && a.node < b.node);

/** Where a record falls in the merged order. */
export interface MergeKey {
  readonly node: string;
  readonly lamport: number;
}

const before = (a: Head, b: Head) => precedes(a.record, b.record);

export class LamportMerge {
  /**
   * Each open stream's next record. A cluster has a few dozen nodes at most, so the next
   * record is found by a scan, which costs less than the replay of one record.
   */
  private readonly heads: Head[] = [];
  /** node -> the clock of its last record, once its stream has ended (0: no record). */
  private readonly ended = new Map<string, number>();

  private streams: ReadonlyMap<string, Iterable<TraceRecord>> | null;
  /**
   * Where a read threw: the node, and the clock of the record the merge was about to hand
   * over (null: its first record was being read). The next record in merged order is that
   * one, so a caller that merges several merges knows where the failure falls.
   */
  failedAt: { readonly node: string; readonly lamport: number | null } | null = null;

  constructor(streams: ReadonlyMap<string, Iterable<TraceRecord>>) {
    this.streams = streams;
  }

  /** Reads every stream's first record, in the map's order (next and endOf do it first). */
  open(): void {
    const streams = this.streams;
    if (streams === null) return;
    this.streams = null;
    for (const [node, records] of streams) {
      const stream = records[Symbol.iterator]();
      let first: IteratorResult<TraceRecord>;
      try {
        first = stream.next();
      } catch (error) {
        this.failedAt = { node, lamport: null };
        throw error;
      }
      if (first.done === true) this.ended.set(node, 0);
      else this.heads.push({ node, stream, record: first.value });
    }
  }

  /** The Lamport clock where `node`'s trace ended, or undefined while it goes on. */
  endOf(node: string): number | undefined {
    this.open();
    return this.ended.get(node);
  }

  /** The next record in the merged order, or undefined when every stream has ended. */
  next(): TraceRecord | undefined {
    this.open();
    const heads = this.heads;
    if (heads.length === 0) return undefined;
    let least = 0;
    for (let at = 1; at < heads.length; at++) if (before(heads[at]!, heads[least]!)) least = at;
    const head = heads[least]!;
    const record = head.record;
    let following: IteratorResult<TraceRecord>;
    try {
      following = head.stream.next();
    } catch (error) {
      this.failedAt = { node: head.node, lamport: record.lamport };
      throw error;
    }
    if (following.done === true) {
      this.ended.set(head.node, record.lamport);
      heads.splice(least, 1);
    } else {
      head.record = following.value;
    }
    return record;
  }
}
