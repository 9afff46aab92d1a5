/**
 * Reads served through ReadIndex (Raft dissertation §6.4) instead of the log: each waits
 * first for the leader's `readReady(index)` (a quorum confirmed it still leads) or
 * `readRefused`, then for the state machine to have applied `index`, and is served from the
 * applied state at that moment. Callbacks only; the Raft step decides everything.
 */

/** Reads waiting at one server beyond which a new one is refused at once (STYLE 7). */
export const pendingReadsMax = 10_000;

interface AppliedWaiter {
  readonly index: number;
  readonly serve: () => void;
}

export class PendingReads {
  private nextRequestId = 1;
  private readonly confirming = new Map<number, (index: number | null) => void>();
  /** Reads confirmed, waiting for their index to apply, in the order readReady came. */
  private waitingApply: AppliedWaiter[] = [];

  /** A request id for a read; null when too many wait already (the caller refuses it). */
  register(onConfirmed: (index: number | null) => void): number | null {
    if (this.confirming.size + this.waitingApply.length >= pendingReadsMax) return null;
    const requestId = this.nextRequestId++;
    this.confirming.set(requestId, onConfirmed);
    return requestId;
  }

  /** readReady (index) or readRefused (null) for `requestId`. */
  confirmed(requestId: number, index: number | null): void {
    const onConfirmed = this.confirming.get(requestId);
    if (onConfirmed === undefined) return;
    this.confirming.delete(requestId);
    onConfirmed(index);
  }

  /** Runs `serve` once `appliedIndex` reaches `index` (at once when it has). */
  whenApplied(index: number, appliedIndex: number, serve: () => void): void {
    if (appliedIndex >= index) return serve();
    this.waitingApply.push({ index, serve });
  }

  /** The state machine applied up to `appliedIndex`: serves the reads it covers. */
  applied(appliedIndex: number): void {
    if (this.waitingApply.length === 0) return;
    const ready = this.waitingApply.filter((waiter) => waiter.index <= appliedIndex);
    if (ready.length === 0) return;
    this.waitingApply = this.waitingApply.filter((waiter) => waiter.index > appliedIndex);
    for (const waiter of ready) waiter.serve();
  }
}
