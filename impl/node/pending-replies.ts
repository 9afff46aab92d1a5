/**
 * The leader's promises to clients: the (index, term) each proposed client command got. When
 * that index applies, the proposer gets the state machine's result if the entry there is the
 * one it proposed (same term), else `wrong-leader`: another leader's entry took the index and
 * the client must retry (its session makes the retry safe). Losing leadership fails them all.
 */
import type { ReplyBody } from './wire.js';

interface Waiter {
  readonly term: number;
  readonly reply: (body: ReplyBody) => void;
}

export class PendingReplies {
  private readonly byIndex = new Map<number, Waiter[]>();

  /** `replyOverwritten`: a planted shell fault (shell-faults.ts), false in every real run. */
  constructor(private readonly replyOverwritten = false) {}

  add(index: number, term: number, reply: (body: ReplyBody) => void): void {
    const waiters = this.byIndex.get(index) ?? [];
    waiters.push({ term, reply });
    this.byIndex.set(index, waiters);
  }

  /** Entry `index` of `term` applied with `body` as its result. */
  applied(index: number, term: number, body: ReplyBody): void {
    const waiters = this.byIndex.get(index);
    if (waiters === undefined) return;
    this.byIndex.delete(index);
    for (const waiter of waiters) {
      waiter.reply(waiter.term === term || this.replyOverwritten ? body : { type: 'wrong-leader', leader: null });
    }
  }

  /** Leadership lost: nobody here will learn these results; the clients ask again. */
  failAll(leader: string | null): void {
    if (this.replyOverwritten) return;
    const all = [...this.byIndex.values()].flat();
    this.byIndex.clear();
    for (const waiter of all) waiter.reply({ type: 'wrong-leader', leader });
  }
}
