/**
 * The simulator's agenda: a binary min-heap of events keyed by (time, sequence). The sequence
 * number is the order of scheduling, so events due at the same time run in the order they were
 * scheduled, and a seed replays the same order. Cancelling marks the event; the heap drops it
 * when it reaches the top (no search through the heap).
 */
import { assert } from '../../spec/assert.js';

export interface ScheduledEvent {
  readonly time: number;
  readonly sequence: number;
  readonly run: () => void;
}

export class EventQueue {
  private readonly heap: ScheduledEvent[] = [];
  /** Sequence numbers of the events scheduled and neither run nor cancelled. */
  private readonly pending = new Set<number>();
  private readonly cancelled = new Set<number>();
  private nextSequence = 0;

  /** @param capacity a named bound: more pending events than this is a runaway simulation. */
  constructor(private readonly capacity = 1_000_000) {}

  /** Schedules `run` at `time`; returns the event's id (its sequence number). */
  push(time: number, run: () => void): number {
    assert(Number.isFinite(time), `event time ${time}`);
    assert(this.heap.length < this.capacity, `more than ${this.capacity} pending events`);
    const event = { time, sequence: this.nextSequence++, run };
    this.heap.push(event);
    this.pending.add(event.sequence);
    this.siftUp(this.heap.length - 1);
    return event.sequence;
  }

  /** Cancels a pending event; an event that ran or was cancelled already is left alone. */
  cancel(id: number): void {
    if (this.pending.delete(id)) this.cancelled.add(id);
  }

  /** The earliest live event without removing it, or undefined. */
  peek(): ScheduledEvent | undefined {
    this.dropCancelledTop();
    return this.heap[0];
  }

  /** Removes and returns the earliest live event, or undefined. */
  pop(): ScheduledEvent | undefined {
    this.dropCancelledTop();
    const top = this.removeTop();
    if (top !== undefined) this.pending.delete(top.sequence);
    return top;
  }

  /** Pending (live) events. */
  get size(): number {
    return this.pending.size;
  }

  private dropCancelledTop(): void {
    // Each iteration removes one heap element, so this ends within heap.length steps.
    while (this.heap.length > 0 && this.cancelled.has(this.heap[0]!.sequence)) {
      this.cancelled.delete(this.heap[0]!.sequence);
      this.removeTop();
    }
  }

  private removeTop(): ScheduledEvent | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top === undefined || last === undefined || top === last) return top;
    this.heap[0] = last;
    this.siftDown(0);
    return top;
  }

  private siftUp(position: number): void {
    const heap = this.heap;
    while (position > 0) {
      const parent = (position - 1) >> 1;
      if (!earlier(heap[position]!, heap[parent]!)) return;
      [heap[position], heap[parent]] = [heap[parent]!, heap[position]!];
      position = parent;
    }
  }

  private siftDown(position: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * position + 1;
      const right = left + 1;
      let smallest = position;
      if (left < heap.length && earlier(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && earlier(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === position) return;
      [heap[position], heap[smallest]] = [heap[smallest]!, heap[position]!];
      position = smallest;
    }
  }
}

function earlier(first: ScheduledEvent, second: ScheduledEvent): boolean {
  if (first.time !== second.time) return first.time < second.time;
  return first.sequence < second.sequence;
}
