/**
 * Check (b) of `shardkv conform`, the storage: each restart of a node loads what its earlier
 * records made durable (storage-model.ts), and each storage report (`logDurable`) names an
 * entry the node's durable storage holds, so a leader counts only its durable copy toward a
 * commit. Fed one record at a time; after the first divergence it only counts.
 */
import type { Persisted } from '../../spec/raft/types.js';
import type { TraceRecord } from '../../impl/trace/schema.js';
import type { Divergence } from './divergence.js';
import { shellDivergence } from './link-ledger.js';
import {
  applyTracedSave, crashOutcomes, describeStorage, emptyStorage, isSaveEffect,
  sameStorage, storedOf, type StoredState,
} from './storage-model.js';

interface Waiting {
  readonly seq: number;
  readonly saves: ReturnType<typeof savesOf>;
}

export class RestartChecker {
  divergence: Divergence | null = null;
  private durable: StoredState = emptyStorage;
  private waiting: Waiting[] = [];
  // Every entry (index -> terms) that was durable at some point above the durable snapshot:
  // a report may arrive after a newer leader's entries replaced the one it names (the spec
  // then ignores it). Entries the durable snapshot covers are dropped (wasDurable).
  private readonly everDurable = new Map<number, Set<number>>();
  private forgottenThrough = 0;

  /** The index of the durable snapshot (0: none). */
  get durableSnapshotIndex(): number {
    return this.durable.snapshot?.lastIncludedIndex ?? 0;
  }

  /** Entries remembered as once durable (bounded by the log above the durable snapshot). */
  get retained(): number {
    let count = 0;
    for (const terms of this.everDurable.values()) count += terms.size;
    return count;
  }

  next(record: TraceRecord): void {
    if (this.divergence !== null) return;
    const input = record.input as { type: string; step?: number; persisted?: unknown;
      index?: number; term?: number };
    if (record.actor === 'shell') this.synced(input.step!);
    if (record.actor !== 'raft') return;
    if (input.type === 'restart') {
      const loaded = storedOf(input.persisted as Persisted<unknown, unknown>);
      const outcomes = crashOutcomes(this.durable, this.waiting.flatMap((item) => item.saves));
      if (!outcomes.some((outcome) => sameStorage(outcome, loaded))) {
        this.divergence = { ...shellDivergence(record, 'the restart loaded other than what ' +
          'was persisted', describeStorage(this.durable), describeStorage(loaded)), before: [] };
        return;
      }
      this.durable = loaded;
      this.waiting = [];
      this.remember();
    }
    if (input.type === 'logDurable' && !this.wasDurable(input.index!, input.term!)) {
      this.divergence = { ...shellDivergence(record, `the storage reported entry ` +
        `${input.index} (term ${input.term}) durable before a sync covered it: the leader ` +
        'would count an undurable copy toward a commit', describeStorage(this.durable)),
        before: [] };
      return;
    }
    const saves = savesOf(record);
    if (saves.length > 0) this.waiting.push({ seq: record.seq, saves });
  }

  /** A `synced` record: the saves of every step up to `step` are durable. */
  private synced(step: number): void {
    const covered = this.waiting.filter((item) => item.seq <= step);
    for (const item of covered) {
      this.durable = item.saves.reduce((state, save) => applyTracedSave(state, save),
        this.durable);
    }
    if (covered.length > 0) this.remember();
    this.waiting = this.waiting.slice(covered.length);
  }

  /**
   * Whether entry `index` of `term` was durable at some point. At or below the durable
   * snapshot it passes whatever its term: that state is durable and committed, so a report
   * there cannot make a leader count an undurable copy toward a commit.
   */
  private wasDurable(index: number, term: number): boolean {
    if (index === 0) return term === 0;
    return index <= this.durableSnapshotIndex || this.everDurable.get(index)?.has(term) === true;
  }

  /** Adds the durable storage's entries; drops those its snapshot now covers. */
  private remember(): void {
    const base = this.durableSnapshotIndex;
    for (; this.forgottenThrough < base; this.forgottenThrough++) {
      this.everDurable.delete(this.forgottenThrough + 1);
    }
    const entries = this.durable.entries;
    // Only the tail can be new since the last time: stop at the first entry already seen.
    for (let at = entries.length - 1; at >= 0; at--) {
      const index = base + at + 1;
      const term = entries[at]!.term;
      let terms = this.everDurable.get(index);
      if (terms === undefined) this.everDurable.set(index, (terms = new Set()));
      if (terms.has(term)) break;
      terms.add(term);
    }
  }
}

function savesOf(record: TraceRecord) {
  return record.effects.filter(isSaveEffect);
}
