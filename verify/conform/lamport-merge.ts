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

const before = (a: Head, b: Head) => a.record.lamport < b.record.lamport ||
  (a.record.lamport === b.record.lamport && a.node < b.node);

export class LamportMerge {
  /**
   * Each open stream's next record. A cluster has a few dozen nodes at most, so the next
   * record is found by a scan, which costs less than the replay of one record.
   */
  private readonly heads: Head[] = [];
  /** node -> the clock of its last record, once its stream has ended (0: no record). */
  private readonly ended = new Map<string, number>();

  constructor(streams: ReadonlyMap<string, Iterable<TraceRecord>>) {
    for (const [node, records] of streams) {
      const stream = records[Symbol.iterator]();
      const first = stream.next();
      if (first.done === true) this.ended.set(node, 0);
      else this.heads.push({ node, stream, record: first.value });
    }
  }

  /** The Lamport clock where `node`'s trace ended, or undefined while it goes on. */
  endOf(node: string): number | undefined {
    return this.ended.get(node);
  }

  /** The next record in the merged order, or undefined when every stream has ended. */
  next(): TraceRecord | undefined {
    const heads = this.heads;
    if (heads.length === 0) return undefined;
    let least = 0;
    for (let at = 1; at < heads.length; at++) if (before(heads[at]!, heads[least]!)) least = at;
    const head = heads[least]!;
    const record = head.record;
    const following = head.stream.next();
    if (following.done === true) {
      this.ended.set(head.node, record.lamport);
      heads.splice(least, 1);
    } else {
      head.record = following.value;
    }
    return record;
  }
}
